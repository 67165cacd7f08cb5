import type { FastifyRequest } from 'fastify';
import { sha256Hex } from '../../kit/crypto.ts';
import type { Database } from '../../kit/db.ts';
import { dataSourceColumns, dataSourceFrom, type DataSourceRow } from '../datasources/store.ts';
import { unauthorized } from '../errors.ts';
import { verifyAccessToken, type JwtKeys } from './jwt.ts';
import type { Role } from './roles.ts';
import { RENDER_SESSIONS, type AuthUser, type Plan } from './user.ts';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

/**
 * Who the bearer token names, or undefined. The signature and lifetime are checked first (no database
 * work for a forged token), then one query confirms the token was issued by us, its session is not
 * revoked (logout, refresh reuse) and its user is still active; role and plan are read there, so a
 * role change or deactivation applies to tokens already issued at once.
 */
export async function identify(
  db: Database,
  keys: JwtKeys,
  authorization: string | undefined,
): Promise<AuthUser | undefined> {
  return (await identifyWithDataSource(db, keys, authorization, undefined))?.user;
}

/**
 * `identify`, and with `dataSourceId` that data source of the user's tenant in the same statement (null when the
 * tenant has none of that id): a route that runs a query on a source waits on our database once for both, not
 * twice. The row is read only when the token's checks hold, in the same snapshot as them.
 */
export async function identifyWithDataSource(
  db: Database,
  keys: JwtKeys,
  authorization: string | undefined,
  dataSourceId: number | undefined,
): Promise<{ user: AuthUser; dataSource: DataSourceRow | null } | undefined> {
  if (!authorization) return undefined;
  const m = BEARER.exec(authorization);
  if (!m) return undefined;
  const token = m[1]!;
  const claims = await verifyAccessToken(keys, token);
  if (!claims) return undefined;
  const tokenHash = sha256Hex(token);
  const withSource = dataSourceId !== undefined;
  // The query route's statement is prepared (planned once per connection): every step is a primary-key or unique
  // lookup, whose generic plan is an index scan however big the tables grow (src/kit/db.ts on named statements).
  const { rows } = await db.query<{
    id: number;
    tenant_id: number;
    role: Role;
    email: string;
    plan: Plan;
    read_only: boolean;
  }>(
    withSource ? WITH_SOURCE : USER_ONLY,
    withSource ? [tokenHash, claims.uid, claims.tid, dataSourceId] : [tokenHash, claims.uid, claims.tid],
    withSource ? 'dashboard_identify_with_source' : undefined,
  );
  const r = rows[0];
  if (!r) return undefined;
  const user: AuthUser = { id: r.id, tenantId: r.tenant_id, role: r.role, email: r.email, plan: r.plan, tokenHash };
  if (r.read_only) user.readOnly = true;
  return { user, dataSource: withSource ? (dataSourceFrom(r, SOURCE_PREFIX) ?? null) : null };
}

const USER_FROM = `FROM access_tokens a
       JOIN sessions s ON s.id = a.session_id
       JOIN users u ON u.id = s.user_id
       JOIN tenants t ON t.id = u.tenant_id`;
const USER_WHERE = `WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND a.expires_at > now()
        AND s.revoked_at IS NULL AND u.active AND u.id = $2 AND u.tenant_id = $3`;
const RENDER_PROVIDERS = Object.values(RENDER_SESSIONS)
  .map((p) => `'${p}'`)
  .join(', ');
const USER_COLUMNS = `u.id, u.tenant_id, u.role, u.email, t.plan, s.provider IN (${RENDER_PROVIDERS}) AS read_only`;
const USER_ONLY = `SELECT ${USER_COLUMNS} ${USER_FROM} ${USER_WHERE}`;
const SOURCE_PREFIX = 'ds_';
const WITH_SOURCE = `SELECT ${USER_COLUMNS}, ${dataSourceColumns('d', SOURCE_PREFIX)} ${USER_FROM}
       LEFT JOIN data_sources d ON d.tenant_id = u.tenant_id AND d.id = $4 ${USER_WHERE}`;

/** The caller, on a route declared `signedIn(...)` (its access check has already refused anyone else). */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw unauthorized();
  return request.user;
}
