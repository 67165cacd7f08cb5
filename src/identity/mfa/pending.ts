import type { Queryable } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';

// Time a person has, after the password, to give the second factor.
const PENDING_TTL_SECONDS = 10 * 60;

/**
 * Records that this interaction's first step passed for `principalId` and the second factor is due.
 * `firstFactor` is 'pwd' after a password, or the social provider's id after a social sign-in.
 */
export async function startPending(
  db: Queryable,
  interactionId: string,
  principalId: string,
  firstFactor = 'pwd',
): Promise<void> {
  await db.query('DELETE FROM mfa_pending WHERE expires_at < now()');
  await db.query(
    `INSERT INTO mfa_pending (interaction_hash, principal_id, expires_at, first_factor) VALUES ($1, $2, now() + make_interval(secs => $3), $4)
     ON CONFLICT (interaction_hash) DO UPDATE SET principal_id = excluded.principal_id, expires_at = excluded.expires_at, first_factor = excluded.first_factor`,
    [sha256Hex(interactionId), principalId, PENDING_TTL_SECONDS, firstFactor],
  );
}

/** The principal whose second factor this interaction waits for, if any. */
export async function findPending(db: Queryable, interactionId: string): Promise<string | undefined> {
  return (await findPendingStep(db, interactionId))?.principalId;
}

/** The pending step with how its first step was passed. */
export async function findPendingStep(
  db: Queryable,
  interactionId: string,
): Promise<{ principalId: string; firstFactor: string } | undefined> {
  const r = await db.query<{ principal_id: string; first_factor: string }>(
    'SELECT principal_id, first_factor FROM mfa_pending WHERE interaction_hash = $1 AND expires_at > now()',
    [sha256Hex(interactionId)],
  );
  const row = r.rows[0];
  return row ? { principalId: row.principal_id, firstFactor: row.first_factor } : undefined;
}

export async function endPending(db: Queryable, interactionId: string): Promise<void> {
  await db.query('DELETE FROM mfa_pending WHERE interaction_hash = $1', [sha256Hex(interactionId)]);
}
