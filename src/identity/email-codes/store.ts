import { createHmac, randomInt } from 'node:crypto';
import type { Database } from '../../kit/db.ts';
import { safeEqual } from '../../kit/crypto.ts';
import { normaliseEmail } from '../principals/view.ts';

export type CodePurpose = 'verify' | 'sign_in';

/** Wrong tries a code takes before it is spent. */
export const MAX_ATTEMPTS = 5;
/** A code's lifetime, in seconds. */
export const CODE_TTL_SECONDS = 600;

function codeHash(key: Buffer, purpose: CodePurpose, code: string): string {
  return createHmac('sha256', key).update(`identity.email-code.${purpose}\n${code}`).digest('base64url');
}

/**
 * A new six-digit code for the person at `email`, for `purpose` and what it is `boundTo`; their older unused codes for
 * the same thing are spent, so only the newest mail's code works.
 */
export async function issueCode(
  db: Database,
  key: Buffer,
  input: { principalId: string; email: string; purpose: CodePurpose; boundTo: string },
): Promise<string> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const email = normaliseEmail(input.email);
  await db.transaction(async (tx) => {
    await tx.query(
      'UPDATE email_codes SET used_at = now() WHERE email = $1 AND purpose = $2 AND bound_to = $3 AND used_at IS NULL',
      [email, input.purpose, input.boundTo],
    );
    await tx.query(
      `INSERT INTO email_codes (principal_id, purpose, email, code_hash, bound_to, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [input.principalId, input.purpose, email, codeHash(key, input.purpose, code), input.boundTo, CODE_TTL_SECONDS],
    );
  });
  return code;
}

export type CodeCheck = { ok: true; principalId: string } | { ok: false; spent: boolean };

/**
 * Checks a typed code against the live code for `email`, `purpose` and `boundTo`, in one transaction with the row
 * locked: right, it is spent and the person's id answered; wrong, its tries are counted and `spent` says whether that
 * was its last. An address with no live code answers like a wrong code, after the same work (the HMAC is computed
 * either way).
 */
export async function checkCode(
  db: Database,
  key: Buffer,
  input: { email: string; purpose: CodePurpose; boundTo: string; code: string },
): Promise<CodeCheck> {
  const typed = codeHash(key, input.purpose, input.code);
  return db.transaction(async (tx) => {
    const r = await tx.query<{ id: string; principal_id: string; code_hash: string; attempts: number }>(
      `SELECT id, principal_id, code_hash, attempts FROM email_codes
        WHERE email = $1 AND purpose = $2 AND bound_to = $3 AND used_at IS NULL AND expires_at > now()
        ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [normaliseEmail(input.email), input.purpose, input.boundTo],
    );
    const row = r.rows[0];
    if (!row) return { ok: false, spent: false };
    if (safeEqual(row.code_hash, typed)) {
      await tx.query('UPDATE email_codes SET used_at = now() WHERE id = $1', [row.id]);
      return { ok: true, principalId: row.principal_id };
    }
    const spent = row.attempts + 1 >= MAX_ATTEMPTS;
    await tx.query(
      `UPDATE email_codes SET attempts = attempts + 1, used_at = CASE WHEN $2 THEN now() ELSE used_at END WHERE id = $1`,
      [row.id, spent],
    );
    return { ok: false, spent };
  });
}

/** The address is the person's and they read it: marked verified (unless it changed meanwhile). */
export async function markVerified(db: Database, principalId: string, email: string): Promise<void> {
  await db.query(
    'UPDATE humans SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now() WHERE principal_id = $1 AND lower(email) = $2',
    [principalId, normaliseEmail(email)],
  );
}
