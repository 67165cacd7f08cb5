import type { Database, Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';
import { APP_TYPES, appFromRow, type AppRecord, type AppType } from './record.ts';
import { ACCOUNT_CLIENT_ID, PLATFORM_CONSOLE_CLIENT_ID, PLATFORM_DASHBOARD_CLIENT_ID } from './built-in-clients.ts';

export interface NewApp {
  name: string;
  appType?: AppType | undefined;
  clientId?: string | undefined;
  redirectUris?: string[] | undefined;
  allowedScopes?: string[] | undefined;
  description?: string | undefined;
  logoUrl?: string | undefined;
  accessTokenTtl?: number | undefined;
  refreshTokenTtl?: number | undefined;
  authorizationCodeTtl?: number | undefined;
  refreshTokenRotation?: boolean | undefined;
  firstParty?: boolean | undefined;
  resourceServer?: boolean | undefined;
  dpopBoundAccessTokens?: boolean | undefined;
  emailCodeSignIn?: boolean | undefined;
  ownerId?: string | undefined;
}

const CLIENT_ID = /^[A-Za-z0-9._~-]{3,128}$/;
const BROWSER_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

export function isPublic(type: AppType): boolean {
  return type === 'spa' || type === 'native';
}

function grantsFor(type: AppType): string[] {
  return type === 'machine' || type === 'service' ? ['client_credentials'] : ['authorization_code', 'refresh_token'];
}

export function checkRedirectUri(uri: string, type: AppType): void {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    throw new HttpError(400, 'VALIDATION_ERROR', `redirect URI "${uri}" is not an absolute URL`);
  }
  if (u.hash) throw new HttpError(400, 'VALIDATION_ERROR', `redirect URI "${uri}" must not have a fragment`);
  const loopback = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
  if (u.protocol === 'https:') return;
  if (u.protocol === 'http:' && (loopback || type === 'native')) return;
  if (type === 'native' && /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(u.protocol)) return;
  throw new HttpError(
    400,
    'VALIDATION_ERROR',
    `redirect URI "${uri}" must use https (http only for localhost; native apps may use a reverse-domain scheme)`,
  );
}

function checkTtl(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > 31_536_000)) {
    throw new HttpError(400, 'VALIDATION_ERROR', `${name} must be an integer number of seconds from 1 to 31536000`);
  }
}

/** What a new app is, once its input is checked: its type, name, client_id, grants, redirect URIs and scopes. */
interface CheckedApp {
  type: AppType;
  name: string;
  clientId: string;
  grants: string[];
  redirectUris: string[];
  scopes: string[];
}

/** A new app's input checked, in the order its refusals are answered. */
function checkNewApp(input: NewApp, knownScopes: readonly string[]): CheckedApp {
  const type = input.appType ?? 'web';
  if (!APP_TYPES.includes(type))
    throw new HttpError(400, 'VALIDATION_ERROR', `app_type must be one of ${APP_TYPES.join(', ')}`);
  const name = input.name?.trim();
  if (!name) throw new HttpError(400, 'VALIDATION_ERROR', 'name must not be empty');
  const clientId = checkClientId(input.clientId ?? `app_${randomToken(16)}`);
  const grants = grantsFor(type);
  const redirectUris = checkRedirects(type, grants, input.redirectUris ?? []);
  const scopes = input.allowedScopes ?? (grants.includes('authorization_code') ? BROWSER_SCOPES : []);
  const unknown = scopes.filter((s) => !knownScopes.includes(s));
  if (unknown.length)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `unknown scope ${unknown.join(', ')}; known: ${knownScopes.join(', ')}`,
    );
  if (input.resourceServer && isPublic(type))
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `a ${type} app is public: it cannot authenticate at introspection, so it cannot be a resource server`,
    );
  checkTtl('access_token_ttl', input.accessTokenTtl);
  checkTtl('refresh_token_ttl', input.refreshTokenTtl);
  checkTtl('authorization_code_ttl', input.authorizationCodeTtl);
  return { type, name, clientId, grants, redirectUris, scopes };
}

function checkClientId(clientId: string): string {
  if (!CLIENT_ID.test(clientId))
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      'client_id must be 3 to 128 characters among letters, digits and . _ ~ -',
    );
  // The provider's static clients (identity's own account pages, the built-in ones of `platform start`) would shadow an app of the same id.
  if ([ACCOUNT_CLIENT_ID, PLATFORM_DASHBOARD_CLIENT_ID, PLATFORM_CONSOLE_CLIENT_ID].includes(clientId))
    throw new HttpError(409, 'CONFLICT', `client_id "${clientId}" is reserved by the identity service`);
  return clientId;
}

/** Browser apps need redirect URIs (each checked for their type); client-credentials apps take none. */
function checkRedirects(type: AppType, grants: string[], redirectUris: string[]): string[] {
  if (grants.includes('authorization_code')) {
    if (redirectUris.length === 0)
      throw new HttpError(400, 'VALIDATION_ERROR', `a ${type} app needs at least one redirect URI`);
    for (const uri of redirectUris) checkRedirectUri(uri, type);
  } else if (redirectUris.length > 0) {
    throw new HttpError(400, 'VALIDATION_ERROR', `a ${type} app uses client credentials and takes no redirect URIs`);
  }
  return redirectUris;
}

/**
 * Registers an OAuth client: its application principal, the oauth_apps record and the principal's extension row.
 * `also` writes in the same transaction (`platform identity apps create`: the first secret and the change-log record).
 */
export async function createApp(
  db: Database,
  input: NewApp,
  knownScopes: readonly string[],
  also?: (tx: Queryable, app: AppRecord) => Promise<void>,
): Promise<AppRecord> {
  const checked = checkNewApp(input, knownScopes);
  try {
    return await insertApp(db, input, checked, also);
  } catch (err) {
    if ((err as { code?: string }).code === '23505')
      throw new HttpError(409, 'CONFLICT', `client_id "${checked.clientId}" is already registered`);
    throw err;
  }
}

function insertApp(
  db: Database,
  input: NewApp,
  { type, name, clientId, grants, redirectUris, scopes }: CheckedApp,
  also: ((tx: Queryable, app: AppRecord) => Promise<void>) | undefined,
): Promise<AppRecord> {
  return db.transaction(async (tx) => {
    const p = await tx.query<{ id: string }>(
      "INSERT INTO principals (type, identifier, display_name, allowed_scopes) VALUES ('application', $1, $2, $3) RETURNING id",
      [clientId, name, JSON.stringify(scopes)],
    );
    const principalId = p.rows[0]!.id;
    const app = await tx.query<Record<string, unknown>>(
      `INSERT INTO oauth_apps (client_id, name, description, logo_url, app_type, redirect_uris, allowed_grants, allowed_response_types,
         allowed_scopes, access_token_ttl, refresh_token_ttl, authorization_code_ttl, refresh_token_rotation, first_party, public, owner_id, principal_id, resource_server, dpop_bound_access_tokens, email_code_sign_in)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10, 900), coalesce($11, 604800), coalesce($12, 600), coalesce($13, true), coalesce($14, false), $15, $16, $17, $18, $19, $20)
       RETURNING *`,
      [
        clientId,
        name,
        input.description ?? null,
        input.logoUrl ?? null,
        type,
        JSON.stringify(redirectUris),
        JSON.stringify(grants),
        JSON.stringify(grants.includes('authorization_code') ? ['code'] : []),
        JSON.stringify(scopes),
        input.accessTokenTtl ?? null,
        input.refreshTokenTtl ?? null,
        input.authorizationCodeTtl ?? null,
        input.refreshTokenRotation ?? null,
        input.firstParty ?? null,
        isPublic(type),
        input.ownerId ?? null,
        principalId,
        input.resourceServer ?? false,
        input.dpopBoundAccessTokens ?? false,
        input.emailCodeSignIn ?? false,
      ],
    );
    const record = appFromRow(app.rows[0]!);
    await tx.query('INSERT INTO applications (principal_id, client_id, oauth_app_id) VALUES ($1, $2, $3)', [
      principalId,
      clientId,
      record.id,
    ]);
    await also?.(tx, record);
    return record;
  });
}

export async function findApp(db: Database, id: string): Promise<AppRecord | undefined> {
  const r = await db.query<Record<string, unknown>>('SELECT * FROM oauth_apps WHERE id = $1', [id]);
  return r.rows[0] ? appFromRow(r.rows[0]) : undefined;
}

export async function findAppByClientId(db: Database, clientId: string): Promise<AppRecord | undefined> {
  const r = await db.query<Record<string, unknown>>('SELECT * FROM oauth_apps WHERE client_id = $1', [clientId]);
  return r.rows[0] ? appFromRow(r.rows[0]) : undefined;
}

export async function listApps(
  db: Database,
  options: { limit: number; after?: string | undefined; search?: string | undefined },
): Promise<AppRecord[]> {
  // `search` is matched as text, never as a pattern: its % _ and \ are escaped.
  const pattern = options.search ? `%${options.search.replace(/[\\%_]/g, '\\$&')}%` : null;
  const r = await db.query<Record<string, unknown>>(
    `SELECT * FROM oauth_apps WHERE ($1::uuid IS NULL OR id > $1)
        AND ($3::text IS NULL OR name ILIKE $3 OR client_id ILIKE $3)
      ORDER BY id LIMIT $2`,
    [options.after ?? null, options.limit, pattern],
  );
  return r.rows.map(appFromRow);
}

export interface SecretInfo {
  id: string;
  secret_prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  revoked: boolean;
  revoked_at: string | null;
  revoked_reason: string | null;
}

const SECRET_PREFIX = 'cs_';
const SECRET_COLUMNS = `id, secret_prefix, ${isoUtc('created_at')} AS created_at, ${isoUtc('expires_at')} AS expires_at, ${isoUtc('last_used_at')} AS last_used_at, last_used_ip, revoked,
  ${isoUtc('revoked_at')} AS revoked_at, revoked_reason`;

/** A new client secret: 256 random bits, returned once; only its SHA-256 and its first characters are kept. */
export async function createSecret(
  db: Queryable,
  appId: string,
  expiresAt?: Date,
): Promise<SecretInfo & { secret: string }> {
  const secret = `${SECRET_PREFIX}${randomToken(32)}`;
  const r = await db.query<SecretInfo>(
    `INSERT INTO oauth_app_secrets (app_id, secret_hash, secret_prefix, expires_at) VALUES ($1, $2, $3, $4)
     RETURNING ${SECRET_COLUMNS}`,
    [appId, sha256Hex(secret), secret.slice(0, SECRET_PREFIX.length + 6), expiresAt ?? null],
  );
  return { ...r.rows[0]!, secret };
}

/** An app's secrets, oldest first, `limit` of them after the position `after` (a previous row's `position`). */
export async function listSecrets(
  db: Database,
  appId: string,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(SecretInfo & { position: [string, string] })[]> {
  const r = await db.query<SecretInfo & { sort_at: string }>(
    `SELECT ${SECRET_COLUMNS}, created_at::text AS sort_at
       FROM oauth_app_secrets WHERE app_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
      ORDER BY oauth_app_secrets.created_at, oauth_app_secrets.id LIMIT $4`,
    [appId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...s }) => ({ ...s, position: [sort_at, s.id] }));
}

export async function revokeSecret(
  db: Database,
  appId: string,
  secretId: string,
  reason = 'revoked',
): Promise<boolean> {
  const r = await db.query(
    'UPDATE oauth_app_secrets SET revoked = true, revoked_at = now(), revoked_reason = $3 WHERE app_id = $1 AND id = $2 AND NOT revoked',
    [appId, secretId, reason],
  );
  return r.rowCount > 0;
}

/** One secret of an app (never its hash). */
export async function findSecret(db: Database, appId: string, secretId: string): Promise<SecretInfo | undefined> {
  return (
    await db.query<SecretInfo>(`SELECT ${SECRET_COLUMNS} FROM oauth_app_secrets WHERE app_id = $1 AND id = $2`, [
      appId,
      secretId,
    ])
  ).rows[0];
}
