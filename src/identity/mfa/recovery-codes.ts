import { createHmac, randomInt } from 'node:crypto';
import type { Queryable } from '../../kit/db.ts';

export const RECOVERY_CODE_COUNT = 10;
// No 0/o, 1/l/i: the codes are typed by hand from paper. 31 symbols ** 10 characters is about 49.5 bits.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 10;

const keys = new WeakMap<Buffer, Buffer>();
function hashKey(secretKey: Buffer): Buffer {
  let k = keys.get(secretKey);
  if (!k) {
    k = createHmac('sha256', secretKey).update('identity.recovery-codes').digest();
    keys.set(secretKey, k);
  }
  return k;
}

/** How a code is written down and typed: case, spaces and dashes do not matter. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

// A keyed hash rather than scrypt: the codes are random (not chosen by people), and with the key outside the
// database a copy of the table alone cannot be searched. One lookup by hash finds the code.
function recoveryHash(secretKey: Buffer, code: string): string {
  return createHmac('sha256', hashKey(secretKey)).update(normaliseRecoveryCode(code)).digest('hex');
}

function newCode(): string {
  let s = '';
  for (let i = 0; i < LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

/** A fresh set for the authenticator `credentialId`, replacing any earlier set of the person; returned once. */
export async function issueRecoveryCodes(
  db: Queryable,
  secretKey: Buffer,
  principalId: string,
  credentialId: string,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await db.query('DELETE FROM mfa_recovery_codes WHERE principal_id = $1', [principalId]);
  await db.query(
    `INSERT INTO mfa_recovery_codes (principal_id, credential_id, code_hash)
     SELECT $1, $2, h FROM unnest($3::text[]) AS h`,
    [principalId, credentialId, codes.map((c) => recoveryHash(secretKey, c))],
  );
  return codes;
}

/**
 * Spends a recovery code of the person: true once, false for an unknown or already used code, or one whose
 * authenticator was revoked since. One conditional update, so two requests with the same code cannot both win.
 */
export async function useRecoveryCode(
  db: Queryable,
  secretKey: Buffer,
  principalId: string,
  code: string,
): Promise<boolean> {
  const normal = normaliseRecoveryCode(code);
  if (normal.length !== LENGTH || ![...normal].every((c) => ALPHABET.includes(c))) return false;
  const r = await db.query(
    `UPDATE mfa_recovery_codes r SET used_at = now()
       FROM credentials c
      WHERE r.code_hash = $1 AND r.principal_id = $2 AND r.used_at IS NULL
        AND c.id = r.credential_id AND c.active AND NOT c.revoked`,
    [recoveryHash(secretKey, normal), principalId],
  );
  return r.rowCount > 0;
}

/** How many unused codes the person has left (shown on the security page). */
export async function recoveryCodesLeft(db: Queryable, principalId: string): Promise<number> {
  const r = await db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM mfa_recovery_codes r JOIN credentials c ON c.id = r.credential_id
      WHERE r.principal_id = $1 AND r.used_at IS NULL AND c.active AND NOT c.revoked`,
    [principalId],
  );
  return Number(r.rows[0]?.n ?? 0);
}
