import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';
import { refuseDelegated, type TokenInfo, type TokenVerifier } from '../../kit/auth/admin-guard.ts';
import { presentedToken, type DpopCheck } from '../../kit/auth/dpop.ts';

/** The person a `PERSON` route's token speaks for, and what the verifier learned about it. */
export interface PersonCaller {
  subject: string;
  token: TokenInfo;
}

const callers = new WeakMap<FastifyRequest, PersonCaller>();

/** Who passed the `person` check on this request; only ever asked on routes that declare it. */
export function personCaller(request: FastifyRequest): PersonCaller {
  const caller = callers.get(request);
  if (!caller) throw new Error(`route ${request.routeOptions.url} does not declare PERSON access`);
  return caller;
}

/**
 * The `person` check: a live access token of this service that speaks for someone (any app, any scope; the verifier
 * drops tokens of deactivated apps and principals), 401 otherwise. A DPoP-bound token comes as `Authorization: DPoP`
 * with a proof by its key. A token an agent holds for the person is refused (403): these routes change what only the
 * person decides.
 */
export function personCheck(verifier: TokenVerifier, dpop: DpopCheck) {
  const unauthorized = (message: string, given: boolean) =>
    new HttpError(401, 'UNAUTHORIZED', message, {
      headers: { 'www-authenticate': `Bearer realm="identity"${given ? ', error="invalid_token"' : ''}` },
    });
  return async (_rule: unknown, request: FastifyRequest): Promise<void> => {
    const presented = presentedToken(request.headers.authorization);
    if (!presented)
      throw unauthorized(
        "send the signed-in person's access token (Authorization: Bearer ..., or DPoP ... for a DPoP-bound token)",
        false,
      );
    const info = await verifier(presented.token);
    if (!info?.subject || (info.expiresAt !== undefined && info.expiresAt * 1000 <= Date.now()))
      throw unauthorized('the access token is invalid, expired or revoked', true);
    await dpop.check(request, presented, info.jkt);
    refuseDelegated(info);
    callers.set(request, { subject: info.subject, token: info });
  };
}
