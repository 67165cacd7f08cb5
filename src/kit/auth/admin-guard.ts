import type { FastifyRequest } from 'fastify';
import { safeEqual, sha256Hex } from '../crypto.ts';
import { HttpError } from '../errors.ts';
import { DPOP_SCHEME_NOTE, dpopCheck, presentedToken } from './dpop.ts';
import type { ProofIds } from './dpop-replay.ts';

/**
 * The one guard of every service's admin API (`/api/v1`). A request passes with
 * `Authorization: Bearer <token>` where the token is either
 * - an access token of the platform's identity service carrying the scope the route names, checked by
 *   a `TokenVerifier` (RFC 7662 introspection against identity: `introspectionVerifier`; identity
 *   itself plugs in a verifier that reads its own token store), or
 * - one of the service's own admin tokens from configuration (`<SERVICE>_ADMIN_TOKEN`), for machines
 *   and for a service started without identity; it grants every scope.
 * An access token bound to a key (DPoP, RFC 9449: the verifier reports its `jkt`) passes only as
 * `Authorization: DPoP <token>` with a proof by that key for this very request (see `dpopCheck`), so a
 * stolen bound token is worth nothing without the key; `DPoP` with an unbound token is refused.
 *
 * Usage, in a service's routes:
 *
 *   const guard = createAdminGuard({ realm: 'ingest', serviceTokens: [config.adminToken], verifier });
 *   scope.get('/projects', { onRequest: guard.require('ingest:admin'),
 *     schema: { security: guard.security('ingest:admin'), ... } }, handler);
 *
 * and `callerOf(request)` in a handler tells who passed. Answers: 401 `UNAUTHORIZED` without a token
 * or with one that is unknown, expired or revoked; 403 `FORBIDDEN` for a live token without the scope;
 * 503 `UNAVAILABLE` when the verifier cannot reach identity (the service's own tokens still work).
 */
export interface AdminGuard {
  /**
   * A hook admitting callers whose token carries `scope`: the route's `onRequest`, so nobody unauthenticated gets a body parsed.
   * A token an agent holds for a person (`TokenInfo.delegated`) is refused (403) unless the route passes `allowDelegated`.
   */
  require(scope: string, options?: { allowDelegated?: boolean }): (request: FastifyRequest) => Promise<void>;
  /** The OpenAPI `security` of a route guarded by `require(scope)`. */
  security(scope: string): Record<string, string[]>[];
}

/** What a verifier learned about a live token. */
export interface TokenInfo {
  scopes: readonly string[];
  /** The principal the token speaks for (`sub`); absent for a token of an app acting for itself. */
  subject?: string | undefined;
  clientId?: string | undefined;
  /** Expiry, seconds since the epoch, when known. */
  expiresAt?: number | undefined;
  /**
   * The token is one an agent holds for the person `subject` (RFC 8693 delegation: `act`, a delegation chain).
   * Set by verifiers that can tell (identity's own); guarded routes refuse such tokens unless they allow them.
   */
  delegated?: boolean | undefined;
  /** The SHA-256 JWK thumbprint of the key a DPoP-bound token is bound to (`cnf.jkt`); undefined for a bearer token. */
  jkt?: string | undefined;
}

/**
 * The rule for delegated tokens: an agent acting for a person may call what the person's token lets it call
 * on resource servers, but never a route that has not said it accepts agents — least of all one that changes
 * the person's credentials, approvals, memberships or invitations. Answered 403 FORBIDDEN.
 */
export function refuseDelegated(info: TokenInfo | undefined): void {
  if (info?.delegated) {
    throw new HttpError(
      403,
      'FORBIDDEN',
      'a token an agent holds for a person cannot be used here; the person must call with their own token',
    );
  }
}

/** Resolves a bearer token: its details when it is a live access token, undefined when not (unknown, expired, revoked). */
export type TokenVerifier = (token: string) => Promise<TokenInfo | undefined>;

/** Thrown by a verifier that cannot tell (identity unreachable or refusing us): answered 503, never 401. */
export class VerifierUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerifierUnavailableError';
  }
}

/** Who passed the guard. */
export type Caller =
  | { kind: 'service-token' }
  | { kind: 'access-token'; scopes: readonly string[]; subject: string | undefined; clientId: string | undefined };

export interface AdminGuardOptions {
  /** The service's name, shown as the realm of `WWW-Authenticate`. */
  realm: string;
  /** The service's own admin tokens from configuration; unset ones are ignored. Kept only as SHA-256. */
  serviceTokens?: readonly (string | undefined)[];
  /** Checks identity's access tokens; without it only the service's own tokens open the API. */
  verifier?: TokenVerifier | undefined;
  /** Says what to configure when neither tokens nor a verifier are, e.g. `set INGEST_ADMIN_TOKEN or INGEST_IDENTITY_URL`. */
  howToEnable: string;
  /** Seconds a client should wait after a 503. */
  retryAfterSeconds?: number;
  /** The service's public base URL, against which DPoP proofs' `htu` are checked; unset, the request's scheme and Host. */
  publicUrl?: string | undefined;
  /** Where seen DPoP proof ids are kept; this guard's own memory by default. */
  proofIds?: ProofIds | undefined;
}

export const ADMIN_SECURITY_SCHEME = 'adminToken';

/** The OpenAPI security scheme the guard's `security()` refers to, for the service's `components.securitySchemes`. */
export function adminSecurityScheme(description: string): Record<string, unknown> {
  return {
    [ADMIN_SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: `${description} ${DPOP_SCHEME_NOTE}` },
  };
}

const callers = new WeakMap<FastifyRequest, Caller>();

/** Who passed the admin guard on this request; undefined on routes it does not guard. */
export function callerOf(request: FastifyRequest): Caller | undefined {
  return callers.get(request);
}

export function createAdminGuard(options: AdminGuardOptions): AdminGuard {
  const hashes =
    options.serviceTokens?.filter((t): t is string => typeof t === 'string' && t.length > 0).map((t) => sha256Hex(t)) ??
    [];
  const verifier = options.verifier;
  const realm = options.realm.replace(/["\\]/g, '');
  const retryAfter = String(options.retryAfterSeconds ?? 5);
  const dpop = dpopCheck({ realm, publicUrl: options.publicUrl, proofIds: options.proofIds });

  const unauthorized = (message: string, tokenGiven: boolean) =>
    new HttpError(401, 'UNAUTHORIZED', message, {
      headers: { 'www-authenticate': `Bearer realm="${realm}"${tokenGiven ? ', error="invalid_token"' : ''}` },
    });

  // Comparing hashes of equal length in constant time: neither the token's length nor its prefix leaks.
  const isServiceToken = (token: string) => {
    const given = sha256Hex(token);
    let match = false;
    for (const h of hashes) match = safeEqual(given, h) || match;
    return match;
  };

  return {
    require(scope, requireOptions) {
      return async (request) => {
        if (hashes.length === 0 && !verifier)
          throw unauthorized(`the admin API is disabled: ${options.howToEnable}`, false);
        const presented = presentedToken(request.headers.authorization);
        if (!presented) throw unauthorized('an access token is required: send Authorization: Bearer <token>', false);
        const token = presented.token;
        if (isServiceToken(token)) {
          // The service's own tokens are bearer tokens: the DPoP scheme is refused for them as for any unbound token.
          await dpop.check(request, presented, undefined);
          callers.set(request, { kind: 'service-token' });
          return;
        }
        if (!verifier) throw unauthorized('the token is not an admin token of this service', true);
        let info: TokenInfo | undefined;
        try {
          info = await verifier(token);
        } catch (err) {
          if (err instanceof VerifierUnavailableError) {
            request.log.warn({ err: err.message }, 'admin guard: tokens cannot be checked');
            throw new HttpError(
              503,
              'UNAVAILABLE',
              'access tokens cannot be checked right now (the identity service does not answer); retry later',
              { headers: { 'retry-after': retryAfter } },
            );
          }
          throw err;
        }
        if (!info || (info.expiresAt !== undefined && info.expiresAt * 1000 <= Date.now())) {
          throw unauthorized('the access token is invalid, expired or revoked', true);
        }
        await dpop.check(request, presented, info.jkt);
        if (!requireOptions?.allowDelegated) refuseDelegated(info);
        if (!info.scopes.includes(scope)) {
          throw new HttpError(403, 'FORBIDDEN', `this needs an access token with the scope "${scope}"`, {
            headers: { 'www-authenticate': `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"` },
          });
        }
        callers.set(request, {
          kind: 'access-token',
          scopes: info.scopes,
          subject: info.subject,
          clientId: info.clientId,
        });
      };
    },
    security(scope) {
      return [{ [ADMIN_SECURITY_SCHEME]: [scope] }];
    },
  };
}
