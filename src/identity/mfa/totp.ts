import { randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Database, Queryable } from '../../kit/db.ts';
import { openSealedString, seal } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { issueRecoveryCodes } from './recovery-codes.ts';
import { recordChange } from '../events/record.ts';
import { secondFactorChange } from './factor-change.ts';

// RFC 6238 defaults every authenticator app understands: SHA-1, 6 digits, 30 s steps. One step of
// drift either way is accepted (RFC 6238 section 5.2 recommends at most one).
const PERIOD = 30;
const DIGITS = 6;
const WINDOW = 1;
// An enrollment not confirmed within this time is dropped when the person starts another.
const PENDING_TTL_SECONDS = 15 * 60;

/** What the enrollment page shows: the otpauth:// URI (for the QR code) and the secret as text. */
export interface PendingTotp {
  credentialId: string;
  uri: string;
  secret: string;
}

// The secret must be read back at every verification (RFC 6238), so it cannot be a one-way hash: it is
// kept sealed (AES-256-GCM) in `secret_hash`, bound to its credential row so it cannot be moved to another.
const context = (credentialId: string) => `identity.totp:${credentialId}`;

function totpFor(secretBase32: string, label: string, issuer: string): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** The person's unconfirmed enrollment, made now if there is none (a stale one is replaced). */
export async function pendingEnrollment(
  db: Database,
  key: Buffer,
  principalId: string,
  label: string,
  issuer: string,
): Promise<PendingTotp> {
  const existing = await db.query<{ id: string; secret_hash: string }>(
    `SELECT id, secret_hash FROM credentials
      WHERE principal_id = $1 AND type = 'totp' AND NOT active AND NOT revoked AND created_at > now() - make_interval(secs => $2)
      ORDER BY created_at DESC LIMIT 1`,
    [principalId, PENDING_TTL_SECONDS],
  );
  let id: string;
  let secret: string;
  if (existing.rows[0]) {
    id = existing.rows[0].id;
    secret = openSealedString(key, existing.rows[0].secret_hash, context(id));
  } else {
    id = randomUUID();
    secret = new Secret({ size: 20 }).base32; // 160 bits, RFC 4226 section 4's recommended length
    await db.transaction(async (tx) => {
      await tx.query(
        "DELETE FROM credentials WHERE principal_id = $1 AND type = 'totp' AND NOT active AND NOT revoked",
        [principalId],
      );
      await tx.query(
        `INSERT INTO credentials (id, principal_id, type, identifier, secret_hash, name, active, metadata)
         VALUES ($1, $2, 'totp', $3, $4, 'Authenticator app', false, '{}'::jsonb)`,
        [id, principalId, id, seal(key, secret, context(id))],
      );
    });
  }
  return { credentialId: id, uri: totpFor(secret, label, issuer).toString(), secret };
}

/** Whether the person has a confirmed, live authenticator. */
export async function hasTotp(db: Queryable, principalId: string): Promise<boolean> {
  const r = await db.query(
    `SELECT 1 FROM credentials WHERE principal_id = $1 AND type = 'totp' AND active AND NOT revoked AND (expires_at IS NULL OR expires_at > now())`,
    [principalId],
  );
  return r.rowCount > 0;
}

/**
 * Checks a code against a secret and records its time step: a code is accepted once. The step is
 * recorded with a conditional update, so of two requests presenting the same code at once only one wins,
 * and a code of an earlier step than one already used is refused too.
 */
async function acceptCode(
  db: Queryable,
  key: Buffer,
  row: { id: string; secret_hash: string },
  code: string,
  extra = '',
): Promise<'ok' | 'wrong' | 'reused'> {
  if (!/^\d{6}$/.test(code)) return 'wrong';
  const secret = openSealedString(key, row.secret_hash, context(row.id));
  const totp = totpFor(secret, 'x', 'x');
  const delta = totp.validate({ token: code, window: WINDOW });
  if (delta === null) return 'wrong';
  const step = totp.counter() + delta;
  const r = await db.query(
    `UPDATE credentials SET metadata = jsonb_set(coalesce(metadata, '{}'::jsonb), '{last_step}', to_jsonb($2::bigint)),
            last_used_at = now(), updated_at = now()${extra}
      WHERE id = $1 AND coalesce((metadata->>'last_step')::bigint, -1) < $2`,
    [row.id, step],
  );
  return r.rowCount > 0 ? 'ok' : 'reused';
}

/**
 * Confirms the pending enrollment with a first code: the authenticator becomes live and a fresh set of
 * recovery codes is returned (to be shown once). 409 when the person already has a live one.
 */
export async function confirmEnrollment(
  db: Database,
  key: Buffer,
  principalId: string,
  credentialId: string,
  code: string,
): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; reason: 'wrong' | 'reused' | 'expired' }> {
  // The id comes from a form: anything but a UUID names no enrollment (and must not reach a uuid comparison).
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(credentialId))
    return { ok: false, reason: 'expired' };
  return db.transaction(async (tx) => {
    const r = await tx.query<{ id: string; secret_hash: string }>(
      `SELECT id, secret_hash FROM credentials
        WHERE id = $1 AND principal_id = $2 AND type = 'totp' AND NOT active AND NOT revoked AND created_at > now() - make_interval(secs => $3)
        FOR UPDATE`,
      [credentialId, principalId, PENDING_TTL_SECONDS],
    );
    const row = r.rows[0];
    if (!row) return { ok: false, reason: 'expired' } as const;
    const live = await tx.query(
      "SELECT 1 FROM credentials WHERE principal_id = $1 AND type = 'totp' AND active AND NOT revoked",
      [principalId],
    );
    if (live.rowCount)
      throw new HttpError(
        409,
        'CONFLICT',
        'An authenticator app is already set up. Remove it before setting up another.',
      );
    const outcome = await acceptCode(tx, key, row, code.replace(/\s+/g, ''), ', active = true');
    if (outcome !== 'ok') return { ok: false, reason: outcome } as const;
    await recordChange(tx, secondFactorChange('add', principalId, { type: 'totp', id: row.id }));
    return { ok: true, recoveryCodes: await issueRecoveryCodes(tx, key, principalId, row.id) } as const;
  });
}

/** Verifies a sign-in code of the person's live authenticator: 'ok' once per code. */
export async function verifyTotp(
  db: Database,
  key: Buffer,
  principalId: string,
  code: string,
  ip: string | undefined,
): Promise<'ok' | 'wrong' | 'reused'> {
  const r = await db.query<{ id: string; secret_hash: string }>(
    `SELECT id, secret_hash FROM credentials
      WHERE principal_id = $1 AND type = 'totp' AND active AND NOT revoked AND (expires_at IS NULL OR expires_at > now())`,
    [principalId],
  );
  const row = r.rows[0];
  if (!row) return 'wrong';
  const outcome = await acceptCode(db, key, row, code);
  if (outcome === 'ok') await db.query('UPDATE credentials SET last_used_ip = $2 WHERE id = $1', [row.id, ip ?? null]);
  return outcome;
}

/** Removes the person's authenticator (revoked with a reason, kept on record); its recovery codes go with it. */
export async function removeTotp(db: Database, principalId: string, reason: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query<{ id: string }>(
      `UPDATE credentials SET revoked = true, revoked_at = now(), revoked_reason = $2, updated_at = now()
        WHERE principal_id = $1 AND type = 'totp' AND active AND NOT revoked RETURNING id`,
      [principalId, reason],
    );
    if (!r.rows[0]) return false;
    await tx.query('DELETE FROM mfa_recovery_codes WHERE credential_id = $1', [r.rows[0].id]);
    await recordChange(tx, secondFactorChange('remove', principalId, { type: 'totp', id: r.rows[0].id, reason }));
    return true;
  });
}
