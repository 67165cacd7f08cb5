import type { AccessChecks, AccessRule } from '../../kit/access.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { DPOP_SCHEME_NOTE } from '../../kit/auth/dpop.ts';
import { introspectionVerifier } from '../../kit/auth/introspection.ts';
import { remoteHeldScope } from '../../kit/auth/held-scope.ts';
import type { ApiKeyLookup } from '../../kit/api-keys/lookup.ts';
import type { AuditServiceConfig } from '../config.ts';
import { createAuditGuard, type AuditGuard } from './guard.ts';

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

/**
 * The guard as configured: API keys always; identity's access tokens too when AUDIT_IDENTITY_URL is set, or when
 * `platform start` runs identity beside audit (checked in identity's own store: config.links).
 */
export function auditGuardFromConfig(keys: ApiKeyLookup, config: AuditServiceConfig): AuditGuard {
  const linked = config.links;
  const client = config.identityUrl
    ? {
        identityUrl: config.identityUrl,
        clientId: config.identityClientId!,
        clientSecret: config.identityClientSecret!,
      }
    : undefined;
  return createAuditGuard(
    keys,
    linked
      ? {
          verifier: linked.verifier,
          holdsScope: linked.holdsScope,
          requiredScope: config.requiredScope,
          publicUrl: config.publicUrl,
        }
      : client
        ? {
            verifier: introspectionVerifier(client),
            holdsScope: remoteHeldScope(client),
            requiredScope: config.requiredScope,
            publicUrl: config.publicUrl,
          }
        : null,
  );
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
