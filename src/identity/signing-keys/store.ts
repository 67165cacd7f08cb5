import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';

export type KeyState = 'signing' | 'next' | 'retired' | 'expired';

export interface SigningKeyView {
  kid: string;
  alg: string;
  created_at: string;
  /** When it stopped (or stops) signing; null while it signs or waits to. */
  retired_at: string | null;
  /** Until when it is in the JWKS; null: as long as it is not retired. */
  publish_until: string | null;
  state: KeyState;
  /** In the JWKS, by the database's account (every instance serves it once it has reloaded). */
  published: boolean;
  /** For a key waiting to sign: when the key before it retires. */
  signs_from: string | null;
}

/**
 * Every signing key, newest first, with its state as the database has it: `signing` (the key identity signs ID tokens
 * with now: of the keys not retired, the one retiring soonest), `next` (published, signs once the key before it
 * retires), `retired` (published for verification until `publish_until`), `expired` (out of the JWKS, kept on record).
 */
export async function listSigningKeys(
  db: Queryable,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(SigningKeyView & { position: [string, string] })[]> {
  const r = await db.query<SigningKeyView & { sort_at: string }>(
    `WITH keys AS (
       SELECT k.*, (k.retired_at IS NULL OR k.retired_at > now()) AS active,
              (k.publish_until IS NULL OR k.publish_until > now()) AS published
         FROM signing_keys k
     ), signer AS (
       SELECT kid FROM keys WHERE active AND published
        ORDER BY CASE WHEN retired_at > now() THEN retired_at END ASC NULLS LAST, created_at DESC LIMIT 1
     )
     SELECT k.kid, k.alg, ${isoUtc('k.created_at')} AS created_at, ${isoUtc('k.retired_at')} AS retired_at,
            ${isoUtc('k.publish_until')} AS publish_until, k.published, k.created_at::text AS sort_at,
            CASE WHEN k.kid = (SELECT kid FROM signer) THEN 'signing'
                 WHEN k.active AND k.published THEN 'next'
                 WHEN k.published THEN 'retired' ELSE 'expired' END AS state,
            CASE WHEN k.active AND k.kid <> (SELECT kid FROM signer) THEN
              ${isoUtc('(SELECT max(o.retired_at) FROM signing_keys o WHERE o.created_at < k.created_at AND o.retired_at > now())')}
            END AS signs_from
       FROM keys k
      WHERE $1::timestamptz IS NULL OR (k.created_at, k.kid) < ($1::timestamptz, $2::text)
      ORDER BY k.created_at DESC, k.kid DESC LIMIT $3`,
    [page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...k }) => ({ ...k, position: [sort_at, k.kid] }));
}
