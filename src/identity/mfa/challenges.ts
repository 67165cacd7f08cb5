import type { Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';

export type ChallengePurpose = 'register' | 'sign_in' | 'second_factor';

// A WebAuthn ceremony gets this long between the options and the answer (the options' `timeout` says the same).
export const CHALLENGE_TTL_SECONDS = 5 * 60;

/** A fresh random challenge (256 bits, base64url), stored as its hash with its purpose and binding. */
export async function newChallenge(
  db: Queryable,
  purpose: ChallengePurpose,
  binding: string,
  principalId: string | null,
): Promise<string> {
  const challenge = randomToken(32);
  await db.query('DELETE FROM webauthn_challenges WHERE expires_at < now()');
  await db.query(
    `INSERT INTO webauthn_challenges (challenge_hash, purpose, binding_hash, principal_id, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [sha256Hex(challenge), purpose, sha256Hex(binding), principalId, CHALLENGE_TTL_SECONDS],
  );
  return challenge;
}

/**
 * Spends a challenge: it is deleted whether or not the answer then verifies, so it is good for one try.
 * Undefined when it is unknown, expired, spent, for another purpose or bound to something else.
 */
export async function consumeChallenge(
  db: Queryable,
  challenge: string,
  purpose: ChallengePurpose,
  binding: string,
): Promise<{ principalId: string | null } | undefined> {
  if (challenge.length === 0 || challenge.length > 200) return undefined;
  const r = await db.query<{ principal_id: string | null; purpose: string; binding_hash: string; live: boolean }>(
    'DELETE FROM webauthn_challenges WHERE challenge_hash = $1 RETURNING principal_id, purpose, binding_hash, expires_at > now() AS live',
    [sha256Hex(challenge)],
  );
  const row = r.rows[0];
  if (!row?.live || row.purpose !== purpose || row.binding_hash !== sha256Hex(binding)) return undefined;
  return { principalId: row.principal_id };
}
