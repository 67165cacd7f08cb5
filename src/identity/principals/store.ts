import type { Database, Queryable } from '../../kit/db.ts';
import { hashSecret, needsRehash, verifySecret } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { findHumanByEmail, findPrincipal, normaliseEmail, type PrincipalView } from './view.ts';

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

function checkEmail(email: string): string {
  if (!EMAIL.test(email) || email.length > 320)
    throw new HttpError(400, 'VALIDATION_ERROR', 'email must be an email address');
  return email;
}

/**
 * What a caller writes in the same transaction as the principal it creates (a command's change-log record), so the two
 * stand or fall together.
 */
export type AlsoWrite<T> = (tx: Queryable, made: T) => Promise<void>;

export async function createHuman(
  db: Database,
  input: NewHuman,
  also?: AlsoWrite<PrincipalView>,
): Promise<PrincipalView> {
  // Checked before the slow hash as well as in insertHuman: a bad address is refused at once.
  checkEmail(normaliseEmail(input.email));
  const passwordHash = input.password !== undefined ? await hashNewPassword(input.password) : undefined;
  try {
    return await db.transaction(async (tx) => {
      const human = await insertHuman(tx, input, passwordHash);
      await also?.(tx, human);
      return human;
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505')
      throw new HttpError(409, 'CONFLICT', 'a principal with this email already exists');
    throw err;
  }
}

/**
 * The rows of a new human inside the caller's transaction (createHuman's, or one that writes more with it, such as a
 * password link); `passwordHash` from hashSecret. A taken email is PostgreSQL's unique violation (23505), for the caller.
 */
export async function insertHuman(tx: Queryable, input: NewHuman, passwordHash?: string): Promise<PrincipalView> {
  const email = checkEmail(normaliseEmail(input.email));
  const display = input.displayName?.trim() || [input.givenName, input.familyName].filter(Boolean).join(' ') || email;
  const p = await tx.query<{ id: string }>(
    "INSERT INTO principals (type, identifier, display_name, allowed_scopes) VALUES ('human', $1, $2, $3) RETURNING id",
    [
      email,
      display,
      JSON.stringify(
        input.isPlatformAdmin
          ? ['openid', 'profile', 'email', 'offline_access', 'admin']
          : ['openid', 'profile', 'email', 'offline_access'],
      ),
    ],
  );
  const id = p.rows[0]!.id;
  await tx.query(
    `INSERT INTO humans (principal_id, email, given_name, family_name, is_platform_admin, email_verified_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::boolean THEN now() END)`,
    [
      id,
      email,
      input.givenName ?? null,
      input.familyName ?? null,
      input.isPlatformAdmin ?? false,
      input.emailVerified ?? false,
    ],
  );
  if (passwordHash) await setPasswordHash(tx, id, passwordHash);
  return (await findPrincipal(tx, id))!;
}

/** Replaces a principal's password with `hash` (from hashSecret) inside the caller's transaction; the old one is revoked as `replaced`. */
export async function setPasswordHash(tx: Queryable, principalId: string, hash: string): Promise<void> {
  await tx.query(
    "UPDATE credentials SET revoked = true, revoked_at = now(), revoked_reason = 'replaced' WHERE principal_id = $1 AND type = 'password' AND NOT revoked",
    [principalId],
  );
  await tx.query(
    "INSERT INTO credentials (principal_id, type, secret_hash, name) VALUES ($1, 'password', $2, 'password')",
    [principalId, hash],
  );
}

/** A new password's hash for setPasswordHash, once it is long enough (400 otherwise). */
export async function hashNewPassword(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new HttpError(400, 'VALIDATION_ERROR', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return hashSecret(password);
}

export async function setPassword(db: Database, principalId: string, password: string): Promise<void> {
  const hash = await hashNewPassword(password);
  await db.transaction((tx) => setPasswordHash(tx, principalId, hash));
}

// A fixed hash verified when the account does not exist, so a wrong email takes as long as a wrong password.
let decoy: Promise<string> | undefined;

/** The human with this email and password, or undefined; always spends one scrypt verification. */
export async function checkPassword(
  db: Database,
  email: string,
  password: string,
  ip?: string,
): Promise<PrincipalView | undefined> {
  const human = await findHumanByEmail(db, email);
  // An expired password (expires_at passed) no longer signs in, like every other credential.
  const row = human
    ? (
        await db.query<{ secret_hash: string }>(
          "SELECT secret_hash FROM credentials WHERE principal_id = $1 AND type = 'password' AND NOT revoked AND active AND (expires_at IS NULL OR expires_at > now())",
          [human.id],
        )
      ).rows[0]
    : undefined;
  const stored = row?.secret_hash;
  decoy ??= hashSecret('decoy password that matches nothing');
  const ok = await verifySecret(password, stored ?? (await decoy));
  if (!ok || !human || !stored || !human.active) return undefined;
  if (needsRehash(stored)) await setPassword(db, human.id, password);
  await db.query(
    "UPDATE credentials SET last_used_at = now(), last_used_ip = $2 WHERE principal_id = $1 AND type = 'password' AND NOT revoked",
    [human.id, ip ?? null],
  );
  await noteLogin(db, human.id);
  return human;
}

/** A person's first sign-in step passed (a right password, a social sign-in): their last login is now. */
export async function noteLogin(db: Database, principalId: string): Promise<void> {
  await db.query('UPDATE humans SET last_login_at = now() WHERE principal_id = $1', [principalId]);
}

function conflictOnDuplicate(err: unknown, what: string): never {
  if ((err as { code?: string }).code === '23505') throw new HttpError(409, 'CONFLICT', what);
  if ((err as { code?: string }).code === '23503')
    throw new HttpError(400, 'VALIDATION_ERROR', 'a referenced principal or organization does not exist');
  throw err;
}

interface PrincipalBase {
  displayName?: string | undefined;
  allowedScopes?: string[] | undefined;
  capabilities?: Record<string, unknown> | undefined;
  metadata?: Record<string, unknown> | undefined;
  organizationId?: string | undefined;
}

export interface NewService extends PrincipalBase {
  name: string;
  serviceType: string;
  description?: string | undefined;
  allowedIps?: string[] | undefined;
  createdBy?: string | undefined;
}

export interface NewAgent extends PrincipalBase {
  name: string;
  modelId: string;
  version?: string | undefined;
  capabilityConstraints?: Record<string, unknown> | undefined;
  resourceConstraints?: Record<string, unknown> | undefined;
  maxTokenLifetime?: number | undefined;
  sessionId?: string | undefined;
  requiresConfirmation?: boolean | undefined;
  delegatingPrincipalId?: string | undefined;
  dpopRequired?: boolean | undefined;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/;

async function insertPrincipal(
  tx: Queryable,
  type: 'service' | 'agent',
  identifier: string,
  input: PrincipalBase,
): Promise<string> {
  if (!NAME.test(identifier))
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      'name must be 1 to 200 characters among letters, digits and . _ : @ -, starting with a letter or digit',
    );
  const p = await tx.query<{ id: string }>(
    `INSERT INTO principals (type, identifier, display_name, allowed_scopes, capabilities, metadata, organization_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [
      type,
      identifier,
      input.displayName?.trim() || identifier,
      JSON.stringify(input.allowedScopes ?? []),
      JSON.stringify(input.capabilities ?? {}),
      input.metadata ? JSON.stringify(input.metadata) : null,
      input.organizationId ?? null,
    ],
  );
  return p.rows[0]!.id;
}

/** A service principal (a machine acting for itself, e.g. with an API key); its name is its unique identifier. */
export async function createService(
  db: Database,
  input: NewService,
  also?: AlsoWrite<PrincipalView>,
): Promise<PrincipalView> {
  if (!input.serviceType?.trim()) throw new HttpError(400, 'VALIDATION_ERROR', 'service_type must not be empty');
  try {
    return await db.transaction(async (tx) => {
      const id = await insertPrincipal(tx, 'service', input.name, input);
      await tx.query(
        'INSERT INTO service_principals (principal_id, service_type, description, allowed_ips, created_by) VALUES ($1, $2, $3, $4, $5)',
        [
          id,
          input.serviceType.trim(),
          input.description ?? null,
          JSON.stringify(input.allowedIps ?? []),
          input.createdBy ?? null,
        ],
      );
      const service = (await findPrincipal(tx, id))!;
      await also?.(tx, service);
      return service;
    });
  } catch (err) {
    conflictOnDuplicate(err, `a principal named "${input.name}" already exists`);
  }
}

/** An agent principal (software acting with delegated authority, possibly for another principal). */
export async function createAgent(
  db: Database,
  input: NewAgent,
  also?: AlsoWrite<PrincipalView>,
): Promise<PrincipalView> {
  if (!input.modelId?.trim()) throw new HttpError(400, 'VALIDATION_ERROR', 'model_id must not be empty');
  try {
    return await db.transaction(async (tx) => {
      const id = await insertPrincipal(tx, 'agent', input.name, input);
      await tx.query(
        `INSERT INTO agents (principal_id, model_id, version, capability_constraints, resource_constraints, max_token_lifetime, session_id,
           requires_confirmation, delegating_principal_id, dpop_required)
         VALUES ($1, $2, $3, $4, $5, coalesce($6, 3600), $7, coalesce($8, true), $9, $10)`,
        [
          id,
          input.modelId.trim(),
          input.version ?? null,
          JSON.stringify(input.capabilityConstraints ?? {}),
          JSON.stringify(input.resourceConstraints ?? {}),
          input.maxTokenLifetime ?? null,
          input.sessionId ?? null,
          input.requiresConfirmation ?? null,
          input.delegatingPrincipalId ?? null,
          input.dpopRequired ?? false,
        ],
      );
      const agent = (await findPrincipal(tx, id))!;
      await also?.(tx, agent);
      return agent;
    });
  } catch (err) {
    conflictOnDuplicate(err, `a principal named "${input.name}" already exists`);
  }
}

export interface PrincipalChanges {
  displayName?: string | undefined;
  allowedScopes?: string[] | undefined;
  capabilities?: Record<string, unknown> | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  organizationId?: string | null | undefined;
}

/** Changes the common fields of a principal (its type and identifier are immutable). */
export async function updatePrincipal(
  db: Database,
  id: string,
  c: PrincipalChanges,
): Promise<PrincipalView | undefined> {
  try {
    const r = await db.query(
      `UPDATE principals SET
         display_name = coalesce($2, display_name),
         allowed_scopes = coalesce($3::jsonb, allowed_scopes),
         capabilities = coalesce($4::jsonb, capabilities),
         metadata = CASE WHEN $5::boolean THEN $6::jsonb ELSE metadata END,
         organization_id = CASE WHEN $7::boolean THEN $8::uuid ELSE organization_id END,
         updated_at = now()
       WHERE id = $1`,
      [
        id,
        c.displayName?.trim() || null,
        c.allowedScopes ? JSON.stringify(c.allowedScopes) : null,
        c.capabilities ? JSON.stringify(c.capabilities) : null,
        c.metadata !== undefined,
        c.metadata ? JSON.stringify(c.metadata) : null,
        c.organizationId !== undefined,
        c.organizationId ?? null,
      ],
    );
    if (r.rowCount === 0) return undefined;
  } catch (err) {
    conflictOnDuplicate(err, 'conflicting principal');
  }
  return findPrincipal(db, id);
}

/**
 * What a change of a principal's `active` flag drops at once on this instance (and on the others through their bus): the
 * principal directory's entry, and an application principal's client (ClientStore, structurally: the OAuth engine sits
 * above this folder).
 */
export interface ActivationCaches {
  accounts: { invalidate(id: string): void };
  clients: { invalidate(clientId: string): void };
}

/**
 * Deactivates (or reactivates) a principal: the one rule, used by the management API (and so the console) and by SCIM
 * provisioning. A deactivated human's browser sessions end (which queues the back-channel logouts, migration 022); a
 * deactivated application principal takes its OAuth app with it; tokens are refused through the principal's `active`
 * flag, read at every use through the caches dropped here, so they stop counting at once. `also` writes in the same
 * transaction (the change's record).
 */
export async function setPrincipalActive(
  db: Database,
  caches: ActivationCaches,
  id: string,
  active: boolean,
  also?: AlsoWrite<string>,
): Promise<PrincipalView | undefined> {
  const found = await db.transaction(async (tx) => {
    const applied = await applyPrincipalActive(tx, id, active);
    if (applied) await also?.(tx, id);
    return applied;
  });
  if (!found) return undefined;
  const p = await findPrincipal(db, id);
  if (p) activationApplied(caches, p);
  return p;
}

/** setPrincipalActive's caches, for a caller that applied applyPrincipalActive in a transaction of its own, once it committed. */
export function activationApplied(caches: ActivationCaches, p: Pick<PrincipalView, 'id' | 'application'>): void {
  caches.accounts.invalidate(p.id);
  if (p.application) caches.clients.invalidate(p.application.clientId);
}

/** setPrincipalActive's rows inside the caller's transaction (one that records the change with it); false for no such principal. */
export async function applyPrincipalActive(tx: Queryable, id: string, active: boolean): Promise<boolean> {
  const r = await tx.query<{ type: string }>(
    'UPDATE principals SET active = $2, updated_at = now() WHERE id = $1 RETURNING type',
    [id, active],
  );
  const row = r.rows[0];
  if (!row) return false;
  if (!active) await tx.query('DELETE FROM login_sessions WHERE principal_id = $1', [id]);
  if (row.type === 'application')
    await tx.query(
      'UPDATE oauth_apps SET active = $2, revoked_at = CASE WHEN $2 THEN NULL ELSE now() END, updated_at = now() WHERE principal_id = $1',
      [id, active],
    );
  return true;
}
