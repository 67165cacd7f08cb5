import type { FastifyRequest } from 'fastify';
import type { ApiKeyLookup } from '../../kit/api-keys/lookup.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { VerifierUnavailableError, type TokenInfo, type TokenVerifier } from '../../kit/auth/admin-guard.ts';
import { dpopCheck, type PresentedToken } from '../../kit/auth/dpop.ts';
import type { HeldScopeCheck } from '../../kit/auth/held-scope.ts';
import { ownerRight, TOKEN_OWNER } from './owner-right.ts';
import { AUDIT_KEYS } from './keys.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling: `key:<api key id>` or `token:<subject>` (also for a key a person made); jobs belong to it. */
    auditOwner: string;
    /** How the caller proved itself: an API key, or an access token of identity (a person signed in to the console). */
    auditVia: 'key' | 'token';
  }
}

export type AuditGuard = (request: FastifyRequest) => Promise<void>;

const CHALLENGE = { 'www-authenticate': 'Bearer realm="audit"' };

function unauthorized(message: string): HttpError {
  return new HttpError(401, codeForStatus(401), message, { headers: CHALLENGE });
}

/**
 * The check of every audit route declaring `CALLER` (./access.ts), run before the body is read: an API key (`Authorization: Bearer ak_…` or `X-API-Key: ak_…`)
 * made with `platform audit keys create`, or, when introspection is configured, an access token of the
 * platform's identity service (`Authorization: Bearer <token>`; a DPoP-bound one as `Authorization: DPoP <token>` with
 * a proof by its key, checked by the kit's `dpopCheck` against `publicUrl`).
 */
export function createAuditGuard(
  keys: ApiKeyLookup,
  tokens: {
    verifier: TokenVerifier;
    /** Whether a key's maker still holds the required scope: a console key counts only while they do. */
    holdsScope: HeldScopeCheck;
    requiredScope: string;
    publicUrl?: string | undefined;
  } | null,
): AuditGuard {
  const dpop = dpopCheck({ realm: 'audit', publicUrl: tokens?.publicUrl });
  const unavailable = (request: FastifyRequest, err: VerifierUnavailableError, what: string) => {
    request.log.warn({ err }, `identity did not answer: ${what} cannot be checked`);
    return new HttpError(
      503,
      codeForStatus(503),
      `${what} cannot be checked right now: the identity service did not answer`,
      { headers: { 'retry-after': '5' } },
    );
  };
  // A console key speaks for its maker (`token:<sub>`), so it counts only while they hold the right their own token would need.
  const standing = ownerRight(tokens);
  const checkMaker = async (request: FastifyRequest, owner: string) => {
    let now: Awaited<ReturnType<typeof standing>>;
    try {
      now = await standing(owner);
    } catch (err) {
      if (!(err instanceof VerifierUnavailableError)) throw err;
      throw unavailable(request, err, "the right of this key's maker");
    }
    if (now === 'no-identity')
      throw unauthorized(
        'this API key was made in the console by a person of the identity service, and this service has no identity configured to check their right',
      );
    if (now === 'lost')
      throw new HttpError(
        403,
        codeForStatus(403),
        `the person who made this API key no longer holds the scope ${tokens!.requiredScope}: their keys count again if it is given back`,
      );
  };
  return async (request) => {
    const header = request.headers.authorization;
    const apiKeyHeader = request.headers['x-api-key'];
    let credential: string | null = null;
    let presented: PresentedToken | undefined;
    if (typeof header === 'string') {
      const m = /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(header);
      if (!m)
        throw unauthorized('malformed Authorization header: send Authorization: Bearer <API key or access token>');
      credential = m[2]!;
      presented = { scheme: m[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: credential };
    } else if (typeof apiKeyHeader === 'string') credential = apiKeyHeader.trim();
    if (!credential)
      throw unauthorized(
        'missing credentials: send Authorization: Bearer <API key or access token>, or X-API-Key: <API key>',
      );
    if (credential.startsWith(AUDIT_KEYS.prefix)) {
      // An API key is a bearer credential: the DPoP scheme is refused for it as for any unbound token.
      if (presented) await dpop.check(request, presented, undefined);
      const holder = await keys.find(credential);
      if (!holder) throw unauthorized('invalid or revoked API key');
      if (holder.owner) await checkMaker(request, holder.owner);
      request.auditOwner = holder.owner ?? `key:${holder.keyId}`;
      request.auditVia = 'key';
      return;
    }
    if (!tokens)
      throw unauthorized(
        'invalid API key (access tokens are not accepted: this service has no AUDIT_IDENTITY_URL configured)',
      );
    let info: TokenInfo | undefined;
    try {
      info = await tokens.verifier(credential);
    } catch (err) {
      if (!(err instanceof VerifierUnavailableError)) throw err;
      throw unavailable(request, err, 'access tokens');
    }
    if (!info) throw unauthorized('the access token is not active (unknown, expired or revoked)');
    // A bound token never arrives by X-API-Key (no presented scheme): it is then checked as sent with Bearer.
    await dpop.check(request, presented ?? { scheme: 'Bearer', token: credential }, info.jkt);
    if (!info.scopes.includes(tokens.requiredScope))
      throw new HttpError(403, codeForStatus(403), `the access token lacks the scope ${tokens.requiredScope}`);
    const subject = info.subject ?? info.clientId;
    if (!subject) throw unauthorized('the access token names no subject');
    request.auditOwner = `${TOKEN_OWNER}${subject}`;
    request.auditVia = 'token';
  };
}
