import type { AccessChecks, AccessRule } from '../../kit/access.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { DPOP_SCHEME_NOTE } from '../../kit/auth/dpop.ts';
import { introspectionVerifier } from '../../kit/auth/introspection.ts';
import { remoteHeldScope } from '../../kit/auth/held-scope.ts';
import type { AuditServiceConfig } from '../config.ts';
import type { createAuditGuard, AuditGuard } from './guard.ts';

/**
 * The one kind of caller the audit API knows: an API key, or an identity access token with the required scope
 * (src/audit/auth/guard.ts). Jobs and reports belong to that caller; only the probes are public.
 */
export const CALLER: AccessRule = Object.freeze({ kind: 'caller' });

/**
 * A person signed in with an access token of identity (the console): the caller of CALLER, but not an API key. A key
 * does not mint or revoke keys, so one that leaks cannot make itself others nor outlive its revocation.
 */
export const PERSON: AccessRule = Object.freeze({ kind: 'person' });

/** The checks given to createApp: the guard runs in onRequest, before the body is read. */
export function auditAccessChecks(guard: AuditGuard): AccessChecks {
  return {
    caller: (_rule: AccessRule, request) => guard(request),
    person: async (_rule: AccessRule, request) => {
      await guard(request);
      if (request.auditVia !== 'token')
        throw new HttpError(
          403,
          codeForStatus(403),
          'API keys are managed by a person signed in to the console, not with an API key',
        );
    },
  };
}

/** How the audit service reaches identity: its token verifier and the held-scope check, with the scope they need. */
export type AuditIdentity = Parameters<typeof createAuditGuard>[1];

/**
 * Identity as configured: none (API keys only); identity's own store when `platform start` runs identity beside audit
 * (config.links); else introspection and held-scope questions to AUDIT_IDENTITY_URL with the service's own client.
 * Made once per app, so the guard and the scheduler share its answers' cache.
 */
export function auditIdentityFromConfig(config: AuditServiceConfig): AuditIdentity {
  const linked = config.links;
  if (linked)
    return {
      verifier: linked.verifier,
      holdsScope: linked.holdsScope,
      requiredScope: config.requiredScope,
      publicUrl: config.publicUrl,
    };
  if (!config.identityUrl) return null;
  const client = {
    identityUrl: config.identityUrl,
    clientId: config.identityClientId!,
    clientSecret: config.identityClientSecret!,
  };
  return {
    verifier: introspectionVerifier(client),
    holdsScope: remoteHeldScope(client),
    requiredScope: config.requiredScope,
    publicUrl: config.publicUrl,
  };
}

/** The OpenAPI `security` of a CALLER route: the two ways a caller proves itself (schemes declared in app.ts). */
export const CALLER_SECURITY: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearer: [] }];

/** The OpenAPI `security` of a PERSON route: an identity access token only. */
export const PERSON_SECURITY: Array<Record<string, string[]>> = [{ bearer: [] }];

/** The OpenAPI security schemes CALLER_SECURITY names. */
export const CALLER_SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'An API key from `platform audit keys create` (also accepted as a Bearer token)',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: `An API key, or an access token of the identity service when introspection is configured. ${DPOP_SCHEME_NOTE}`,
  },
};
