import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessChecks, AccessRule } from '../kit/access.ts';
import { ADMIN_SECURITY_SCHEME, type AdminGuard } from '../kit/auth/admin-guard.ts';
import { INGEST_ADMIN_SCOPE } from './admin/scope.ts';

export { PUBLIC } from '../kit/access.ts';

/**
 * Who may call each of ingest's routes, declared on the route (`config: { access }`) and enforced by the kit before
 * the body is read (src/kit/access.ts). docs/ingest.md lists them.
 */

/** The admin API (projects, keys, destinations, dead letters): an access token with `scope`, or INGEST_ADMIN_TOKEN. */
export interface AdminRule extends AccessRule {
  readonly kind: 'admin';
  readonly scope: string;
}
export const ADMIN: AdminRule = Object.freeze({ kind: 'admin', scope: INGEST_ADMIN_SCOPE });
/** The OpenAPI `security` of a route declaring ADMIN. */
export const ADMIN_SECURITY = [{ [ADMIN_SECURITY_SCHEME]: [INGEST_ADMIN_SCOPE] }];

/** `POST /v1/events`: a live project API key in `X-Svc-API-Key` (events/api-key.ts). */
export const API_KEY: AccessRule = Object.freeze({ kind: 'api-key' });
/** The OpenAPI `security` of a route declaring API_KEY. */
export const API_KEY_SECURITY = [{ apiKey: [] }];

type ApiKeyCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** What ingest's checks need; built after the app itself (the key cache's invalidation bus and Redis log through it). */
export interface IngestAccessDeps {
  guard: AdminGuard;
  apiKey: ApiKeyCheck;
}

/**
 * ingest's access checks, given to createApp before anything they need exists; `connect` hands them their
 * dependencies once built, before any route is served. Public routes need no check.
 */
export function ingestAccess(): { checks: AccessChecks; connect(deps: IngestAccessDeps): void } {
  let admin: ((rule: AdminRule, request: FastifyRequest) => Promise<void>) | undefined;
  let apiKey: ApiKeyCheck | undefined;
  const connected = <T>(check: T | undefined): T => {
    if (!check) throw new Error('ingest access checks used before connect()');
    return check;
  };
  return {
    checks: {
      admin: (rule: AdminRule, request) => connected(admin)(rule, request),
      'api-key': (_rule: AccessRule, request, reply) => connected(apiKey)(request, reply),
    },
    connect(deps) {
      const byScope = new Map<string, (request: FastifyRequest) => Promise<void>>();
      admin = (rule, request) => {
        let require = byScope.get(rule.scope);
        if (!require) {
          require = deps.guard.require(rule.scope);
          byScope.set(rule.scope, require);
        }
        return require(request);
      };
      apiKey = deps.apiKey;
    },
  };
}
