import type { FastifyRequest } from 'fastify';
import { safeEqual, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
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

/** The OpenAPI security of a marketplace route: a platform admin's token or a person's. */
export const MarketSecurity: Record<string, string[]>[] = [{ [ADMIN_SECURITY_SCHEME]: [] }, { personToken: [] }];

const callers = new WeakMap<FastifyRequest, MarketCaller>();

export function marketCaller(request: FastifyRequest): MarketCaller {
  const c = callers.get(request);
  if (!c) throw new Error(`route ${request.routeOptions.url} does not declare MARKET access`);
  return c;
}

/**
 * The `market` access check (rules.ts MARKET) of every marketplace and subscription route: 401 without a live
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
