import type { Queryable } from '../../kit/db.ts';
import { openSealedString } from '../../kit/crypto.ts';

/** One thing that happened to one of an app's tokens: issued (by a grant), issued by a refresh, or revoked. */
export interface TokenEvent {
  at: string;
  event: 'issued' | 'refreshed' | 'revoked';
  token_id: string;
  token_kind: 'access_token' | 'client_credentials' | 'refresh_token';
  /** The grant that issued the token (authorization_code, refresh_token, client_credentials, token_exchange…). */
  grant_type: string | null;
  scopes: string[];
  /** Whom the token speaks for: a person, an agent, a service, or the app itself (client credentials). */
  subject: { id: string; type: string; identifier: string; display_name: string } | null;
  client_ip: string | null;
  /** Why it was revoked (revoked, grant_revoked, reuse_detected, admin_revoked…); null for an issue. */
  reason: string | null;
}

/** Where a page of events ends: the event's time (full precision), its token and whether it was the issue or the revocation. */
export type EventPosition = [at: string, tokenId: string, happening: 'issued' | 'revoked'];

/** The provider's model of each kind of token row: its payload is sealed against it (oidc/adapter.ts). */
const MODEL: Record<TokenEvent['token_kind'], string> = {
  access_token: 'AccessToken',
  client_credentials: 'ClientCredentials',
  refresh_token: 'RefreshToken',
};

interface Row {
  happening: 'issued' | 'revoked';
  token_id: string;
  at: string;
  sort_at: string;
  kind: TokenEvent['token_kind'];
  signature: string;
  payload: string;
  scopes: string[];
  client_ip: string | null;
  reason: string | null;
  subject_id: string | null;
  subject_type: string | null;
  subject_identifier: string | null;
  subject_name: string | null;
}

/**
 * The grant a token came from, as the provider recorded it in the token's sealed payload (`gty`: the first grant, then
 * ` refresh_token` for each refresh); a client-credentials token has none, its grant is its kind. Null when the payload
 * does not open (sealed under another PLATFORM_SECRET_KEY).
 */
function grantOf(secretKey: Buffer, row: Row): string | null {
  if (row.kind === 'client_credentials') return 'client_credentials';
  try {
    const payload = JSON.parse(
      openSealedString(secretKey, row.payload, `identity.oidc.${MODEL[row.kind]}.${row.signature}`),
    ) as { gty?: unknown };
    return typeof payload.gty === 'string' && payload.gty ? payload.gty.split(' ').at(-1)! : null;
  } catch {
    return null;
  }
}

/**
 * An app's token activity, newest first, read from the token store (oauth_tokens, through the provider's sealed
 * payloads for the grant): each token issued and each revocation, `limit` of them after `after`. Tokens purged 30
 * days after they expired (adapter.ts, purgeExpired) are gone from it.
 */
export async function appTokenActivity(
  db: Queryable,
  secretKey: Buffer,
  appId: string,
  page: { limit: number; after?: EventPosition | undefined },
): Promise<(TokenEvent & { position: EventPosition })[]> {
  const r = await db.query<Row>(
    `WITH events AS (
       (SELECT 'issued' AS happening, t.id, t.created_at AS at FROM oauth_tokens t
         WHERE t.app_id = $1 AND ($2::timestamptz IS NULL OR (t.created_at, t.id, 'issued') < ($2::timestamptz, $3::uuid, $4::text))
         ORDER BY t.created_at DESC, t.id DESC LIMIT $5)
       UNION ALL
       (SELECT 'revoked', t.id, t.revoked_at FROM oauth_tokens t
         WHERE t.app_id = $1 AND t.revoked_at IS NOT NULL
           AND ($2::timestamptz IS NULL OR (t.revoked_at, t.id, 'revoked') < ($2::timestamptz, $3::uuid, $4::text))
         ORDER BY t.revoked_at DESC, t.id DESC LIMIT $5)
     )
     SELECT e.happening, t.id AS token_id, to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
            e.at::text AS sort_at, t.kind, coalesce(t.access_token_signature, t.refresh_token_signature) AS signature,
            t.payload, t.scopes, t.client_ip, CASE WHEN e.happening = 'revoked' THEN t.revoked_reason END AS reason,
            p.id AS subject_id, p.type AS subject_type, p.identifier AS subject_identifier, p.display_name AS subject_name
       FROM events e JOIN oauth_tokens t ON t.id = e.id
       LEFT JOIN principals p ON p.id = t.principal_id
      ORDER BY e.at DESC, e.id DESC, e.happening DESC
      LIMIT $5`,
    [appId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.after?.[2] ?? null, page.limit],
  );
  return r.rows.map((row) => {
    const grant = grantOf(secretKey, row);
    return {
      at: row.at,
      event: row.happening === 'revoked' ? 'revoked' : grant === 'refresh_token' ? 'refreshed' : 'issued',
      token_id: row.token_id,
      token_kind: row.kind,
      grant_type: grant,
      scopes: row.scopes,
      subject: row.subject_id
        ? {
            id: row.subject_id,
            type: row.subject_type!,
            identifier: row.subject_identifier!,
            display_name: row.subject_name!,
          }
        : null,
      client_ip: row.client_ip,
      reason: row.reason,
      position: [row.sort_at, row.token_id, row.happening],
    };
  });
}
