import type { Queryable } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';

// Time a person has, after the password, to give the second factor.
const PENDING_TTL_SECONDS = 10 * 60;

/** Records that this interaction's password step passed for `principalId` and the second factor is due. */
export async function startPending(db: Queryable, interactionId: string, principalId: string): Promise<void> {
  await db.query('DELETE FROM mfa_pending WHERE expires_at < now()');
  await db.query(
    `INSERT INTO mfa_pending (interaction_hash, principal_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
     ON CONFLICT (interaction_hash) DO UPDATE SET principal_id = excluded.principal_id, expires_at = excluded.expires_at`,
    [sha256Hex(interactionId), principalId, PENDING_TTL_SECONDS],
  );
}

/** The principal whose second factor this interaction waits for, if any. */
export async function findPending(db: Queryable, interactionId: string): Promise<string | undefined> {
  const r = await db.query<{ principal_id: string }>(
    'SELECT principal_id FROM mfa_pending WHERE interaction_hash = $1 AND expires_at > now()',
    [sha256Hex(interactionId)],
  );
  return r.rows[0]?.principal_id;
}

export async function endPending(db: Queryable, interactionId: string): Promise<void> {
  await db.query('DELETE FROM mfa_pending WHERE interaction_hash = $1', [sha256Hex(interactionId)]);
}
