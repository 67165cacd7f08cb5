import type { FastifyRequest } from 'fastify';
import { sha256Hex } from '../../kit/crypto.ts';
import type { Database } from '../../kit/db.ts';
import { unauthorized } from '../errors.ts';
import { verifyAccessToken, type JwtKeys } from './jwt.ts';
import type { Role } from './roles.ts';
import type { AuthUser, Plan } from './user.ts';

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
  if (!authorization) return undefined;
  const m = BEARER.exec(authorization);
  if (!m) return undefined;
  const token = m[1]!;
  const claims = await verifyAccessToken(keys, token);
  if (!claims) return undefined;
  const tokenHash = sha256Hex(token);
  const { rows } = await db.query<{ id: number; tenant_id: number; role: Role; email: string; plan: Plan }>(
    `SELECT u.id, u.tenant_id, u.role, u.email, t.plan
       FROM access_tokens a
       JOIN sessions s ON s.id = a.session_id
       JOIN users u ON u.id = s.user_id
       JOIN tenants t ON t.id = u.tenant_id
      WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND a.expires_at > now()
        AND s.revoked_at IS NULL AND u.active AND u.id = $2 AND u.tenant_id = $3`,
    [tokenHash, claims.uid, claims.tid],
  );
  const r = rows[0];
  if (!r) return undefined;
  return { id: r.id, tenantId: r.tenant_id, role: r.role, email: r.email, plan: r.plan, tokenHash };
}

/** The caller, on a route declared `signedIn(...)` (its access check has already refused anyone else). */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw unauthorized();
  return request.user;
}
