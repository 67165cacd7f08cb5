import type { Database, Queryable } from '../../kit/db.ts';
import { hashSecret, needsRehash, verifySecret } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';

export interface Principal {
  id: string;
  type: 'human' | 'application' | 'agent' | 'service';
  identifier: string;
  display_name: string;
  active: boolean;
  allowed_scopes: string[];
  organization_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface Human extends Principal {
  email: string;
  given_name: string | null;
  family_name: string | null;
  locale: string | null;
  timezone: string | null;
  is_platform_admin: boolean;
  last_login_at: string | null;
  email_verified_at: string | null;
}

export interface NewHuman {
  email: string;
  password?: string | undefined;
  displayName?: string | undefined;
  givenName?: string | undefined;
  familyName?: string | undefined;
  isPlatformAdmin?: boolean;
  emailVerified?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 12;

const PRINCIPAL_COLUMNS = `p.id, p.type, p.identifier, p.display_name, p.active, p.allowed_scopes, p.organization_id,
  ${isoUtc('p.created_at')} AS created_at, ${isoUtc('p.updated_at')} AS updated_at`;
const HUMAN_COLUMNS = `${PRINCIPAL_COLUMNS}, h.email, h.given_name, h.family_name, h.locale, h.timezone, h.is_platform_admin,
  ${isoUtc('h.last_login_at')} AS last_login_at, ${isoUtc('h.email_verified_at')} AS email_verified_at`;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createHuman(db: Database, input: NewHuman): Promise<Human> {
  const email = normaliseEmail(input.email);
  if (!EMAIL.test(email) || email.length > 320) throw new HttpError(400, 'VALIDATION_ERROR', 'email must be an email address');
  if (input.password !== undefined && input.password.length < MIN_PASSWORD_LENGTH) {
    throw new HttpError(400, 'VALIDATION_ERROR', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const passwordHash = input.password !== undefined ? await hashSecret(input.password) : undefined;
  const display = input.displayName?.trim() || [input.givenName, input.familyName].filter(Boolean).join(' ') || email;
  try {
    return await db.transaction(async (tx) => {
      const p = await tx.query<{ id: string }>(
        "INSERT INTO principals (type, identifier, display_name, allowed_scopes) VALUES ('human', $1, $2, $3) RETURNING id",
        [email, display, JSON.stringify(input.isPlatformAdmin ? ['openid', 'profile', 'email', 'offline_access', 'admin'] : ['openid', 'profile', 'email', 'offline_access'])],
      );
      const id = p.rows[0]!.id;
      await tx.query(
        `INSERT INTO humans (principal_id, email, given_name, family_name, is_platform_admin, email_verified_at)
         VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::boolean THEN now() END)`,
        [id, email, input.givenName ?? null, input.familyName ?? null, input.isPlatformAdmin ?? false, input.emailVerified ?? false],
      );
      if (passwordHash) await setPasswordHash(tx, id, passwordHash);
      return (await findHumanById(tx, id))!;
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new HttpError(409, 'CONFLICT', 'a principal with this email already exists');
    throw err;
  }
}

async function setPasswordHash(tx: Queryable, principalId: string, hash: string): Promise<void> {
  await tx.query(
    "UPDATE credentials SET revoked = true, revoked_at = now(), revoked_reason = 'replaced' WHERE principal_id = $1 AND type = 'password' AND NOT revoked",
    [principalId],
  );
  await tx.query("INSERT INTO credentials (principal_id, type, secret_hash, name) VALUES ($1, 'password', $2, 'password')", [principalId, hash]);
}

export async function setPassword(db: Database, principalId: string, password: string): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new HttpError(400, 'VALIDATION_ERROR', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const hash = await hashSecret(password);
  await db.transaction((tx) => setPasswordHash(tx, principalId, hash));
}

export async function makePlatformAdmin(db: Database, principalId: string): Promise<void> {
  await db.query('UPDATE humans SET is_platform_admin = true, updated_at = now() WHERE principal_id = $1', [principalId]);
  await db.query(
    `UPDATE principals SET allowed_scopes = (SELECT jsonb_agg(DISTINCT s) FROM jsonb_array_elements_text(allowed_scopes || '["admin"]'::jsonb) s), updated_at = now()
      WHERE id = $1`,
    [principalId],
  );
}

export async function findHumanById(db: Queryable, id: string): Promise<Human | undefined> {
  const r = await db.query<Human>(`SELECT ${HUMAN_COLUMNS} FROM principals p JOIN humans h ON h.principal_id = p.id WHERE p.id = $1`, [id]);
  return r.rows[0];
}

export async function findHumanByEmail(db: Queryable, email: string): Promise<Human | undefined> {
  const r = await db.query<Human>(`SELECT ${HUMAN_COLUMNS} FROM principals p JOIN humans h ON h.principal_id = p.id WHERE lower(h.email) = $1`, [normaliseEmail(email)]);
  return r.rows[0];
}

export async function findPrincipal(db: Queryable, id: string): Promise<Principal | undefined> {
  const r = await db.query<Principal>(`SELECT ${PRINCIPAL_COLUMNS} FROM principals p WHERE p.id = $1`, [id]);
  return r.rows[0];
}

export async function listPrincipals(db: Database, options: { type?: string | undefined; limit: number; after?: string | undefined }): Promise<(Principal & { email: string | null; is_platform_admin: boolean | null })[]> {
  const r = await db.query<Principal & { email: string | null; is_platform_admin: boolean | null }>(
    `SELECT ${PRINCIPAL_COLUMNS}, h.email, h.is_platform_admin FROM principals p LEFT JOIN humans h ON h.principal_id = p.id
      WHERE ($1::text IS NULL OR p.type = $1) AND ($2::uuid IS NULL OR p.id > $2)
      ORDER BY p.id LIMIT $3`,
    [options.type ?? null, options.after ?? null, options.limit],
  );
  return r.rows;
}

// A fixed hash verified when the account does not exist, so a wrong email takes as long as a wrong password.
let decoy: Promise<string> | undefined;

/** The human with this email and password, or undefined; always spends one scrypt verification. */
export async function checkPassword(db: Database, email: string, password: string): Promise<Human | undefined> {
  const human = await findHumanByEmail(db, email);
  const stored = human
    ? (await db.query<{ secret_hash: string }>("SELECT secret_hash FROM credentials WHERE principal_id = $1 AND type = 'password' AND NOT revoked AND active", [human.id])).rows[0]?.secret_hash
    : undefined;
  decoy ??= hashSecret('decoy password that matches nothing');
  const ok = await verifySecret(password, stored ?? (await decoy));
  if (!ok || !human || !stored || !human.active) return undefined;
  if (needsRehash(stored)) await setPassword(db, human.id, password);
  await db.query('UPDATE humans SET last_login_at = now() WHERE principal_id = $1', [human.id]);
  return human;
}
