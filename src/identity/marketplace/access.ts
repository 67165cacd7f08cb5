import type { FastifyRequest } from 'fastify';
import { safeEqual, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import type { Queryable } from '../../kit/db.ts';
import { ADMIN_SECURITY_SCHEME, refuseDelegated, type TokenVerifier } from '../../kit/auth/admin-guard.ts';
import { presentedToken, type DpopCheck } from '../../kit/auth/dpop.ts';
import { ADMIN_SCOPE } from '../config.ts';

/**
 * Who is calling the marketplace API. Unlike the rest of /api/v1 it is not for platform admins only:
 * organization members create listings and buy licenses, so a person's access token (any app, any
 * scope) gets in, and what it may do is decided per record by its memberships. A platform admin (a
 * token whose `admin` scope survived the verifier, which keeps it only for platform admins) or
 * IDENTITY_ADMIN_TOKEN is the marketplace's reviewer and operator.
 */
export interface MarketCaller {
  /** The principal the token speaks for; undefined for IDENTITY_ADMIN_TOKEN. */
  principalId: string | undefined;
  platformAdmin: boolean;
}

/** Roles of an active membership that manage an organization's listings, licenses and seats. */
export const MANAGER_ROLES = ['owner', 'admin'] as const;

/** The OpenAPI security of a marketplace route: a platform admin's token or a person's. */
export const MarketSecurity: Record<string, string[]>[] = [{ [ADMIN_SECURITY_SCHEME]: [] }, { personToken: [] }];

const callers = new WeakMap<FastifyRequest, MarketCaller>();

export function marketCaller(request: FastifyRequest): MarketCaller {
  const c = callers.get(request);
  if (!c) throw new Error(`route ${request.routeOptions.url} does not declare MARKET access`);
  return c;
}

/**
 * The `market` access check (access/rules.ts MARKET) of every marketplace and subscription route: 401 without a live
 * token of a person (or the admin token). A DPoP-bound token comes as `Authorization: DPoP` with a proof by its key (`dpop`).
 */
export function marketCheck(adminToken: string | undefined, verifier: TokenVerifier, dpop: DpopCheck) {
  const adminHash = adminToken ? sha256Hex(adminToken) : undefined;
  const unauthorized = (message: string, given: boolean) =>
    new HttpError(401, 'UNAUTHORIZED', message, {
      headers: { 'www-authenticate': `Bearer realm="identity"${given ? ', error="invalid_token"' : ''}` },
    });
  return async (_rule: unknown, request: FastifyRequest): Promise<void> => {
    const presented = presentedToken(request.headers.authorization);
    if (!presented) throw unauthorized('an access token is required: send Authorization: Bearer <token>', false);
    const token = presented.token;
    if (adminHash && safeEqual(sha256Hex(token), adminHash)) {
      await dpop.check(request, presented, undefined);
      callers.set(request, { principalId: undefined, platformAdmin: true });
      return;
    }
    const info = await verifier(token);
    if (!info?.subject || (info.expiresAt !== undefined && info.expiresAt * 1000 <= Date.now()))
      throw unauthorized('the access token is invalid, expired or revoked', true);
    await dpop.check(request, presented, info.jkt);
    // Listings, licenses and seats are the person's business decisions: an agent's token for them does not get in.
    refuseDelegated(info);
    callers.set(request, { principalId: info.subject, platformAdmin: info.scopes.includes(ADMIN_SCOPE) });
  };
}

/** The role of the principal's active membership in an active organization, or undefined. */
export async function roleIn(
  db: Queryable,
  organizationId: string,
  principalId: string | undefined,
): Promise<string | undefined> {
  if (!principalId) return undefined;
  const r = await db.query<{ role: string }>(
    `SELECT m.role FROM principal_memberships m JOIN organizations o ON o.id = m.organization_id
      WHERE m.organization_id = $1 AND m.principal_id = $2 AND m.active AND o.active`,
    [organizationId, principalId],
  );
  return r.rows[0]?.role;
}

export async function isMember(db: Queryable, caller: MarketCaller, organizationId: string): Promise<boolean> {
  return caller.platformAdmin || (await roleIn(db, organizationId, caller.principalId)) !== undefined;
}

export async function isManager(db: Queryable, caller: MarketCaller, organizationId: string): Promise<boolean> {
  if (caller.platformAdmin) return true;
  const role = await roleIn(db, organizationId, caller.principalId);
  return role !== undefined && (MANAGER_ROLES as readonly string[]).includes(role);
}

/**
 * The principal recorded as having acted (owner_id, purchased_by, assigned_by): the caller, or for
 * IDENTITY_ADMIN_TOKEN, which speaks for nobody, the principal named in the request.
 */
export function actingPrincipal(caller: MarketCaller, named: string | undefined, field: string): string {
  if (caller.principalId) {
    if (named !== undefined && named !== caller.principalId && !caller.platformAdmin)
      throw new HttpError(403, 'FORBIDDEN', `${field} must be yourself`);
    return named ?? caller.principalId;
  }
  if (!named)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `${field} is required with IDENTITY_ADMIN_TOKEN (the token speaks for nobody)`,
    );
  return named;
}
