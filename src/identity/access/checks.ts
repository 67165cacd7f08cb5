import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessChecks } from '../../kit/access.ts';
import type { Database } from '../../kit/db.ts';
import type { AdminGuard, TokenVerifier } from '../../kit/auth/admin-guard.ts';
import type { DpopCheck } from '../../kit/auth/dpop.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { marketCheck } from './market.ts';
import { personCheck } from './person.ts';
import { resourceServerCheck, type ResourceServerApps } from './resource-server.ts';
import { scimCheck, type ScimTokens } from './scim.ts';
import { signedInCheck } from './signed-in.ts';
import type { AdminRule, SignedInRule } from './rules.ts';

/** What identity's checks need; built after the app itself (the provider, the caches and Redis log through the app). */
export interface IdentityAccessDeps {
  guard: AdminGuard;
  verifier: TokenVerifier;
  dpop: DpopCheck;
  adminToken: string | undefined;
  db: Database;
  accounts: PrincipalDirectory;
  clients: ResourceServerApps;
  scimTokens: ScimTokens;
}

type Check = (rule: never, request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * identity's access checks, one per kind of rule in rules.ts, given to createApp before anything they need exists;
 * `connect` hands them their dependencies once built, before the app listens. Public routes need no check.
 */
export function identityAccess(): { checks: AccessChecks; connect(deps: IdentityAccessDeps): void } {
  let admin: ((rule: AdminRule, request: FastifyRequest) => Promise<void>) | undefined;
  let market: Check | undefined;
  let person: Check | undefined;
  let resourceServer: Check | undefined;
  let scim: Check | undefined;
  let session: ((rule: SignedInRule, request: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined;
  const connected = <T>(check: T | undefined): T => {
    if (!check) throw new Error('identity access checks used before connect()');
    return check;
  };
  return {
    checks: {
      admin: (rule: AdminRule, request) => connected(admin)(rule, request),
      market: (rule: never, request, reply) => connected(market)(rule, request, reply),
      person: (rule: never, request, reply) => connected(person)(rule, request, reply),
      'resource-server': (rule: never, request, reply) => connected(resourceServer)(rule, request, reply),
      scim: (rule: never, request, reply) => connected(scim)(rule, request, reply),
      'signed-in': (rule: SignedInRule, request, reply) => connected(session)(rule, request, reply),
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
      market = marketCheck(deps.adminToken, deps.verifier, deps.dpop);
      person = personCheck(deps.verifier, deps.dpop);
      resourceServer = resourceServerCheck(deps.clients);
      scim = scimCheck(deps.scimTokens);
      session = signedInCheck(deps.db, deps.accounts);
    },
  };
}
