import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessChecks, AccessRule } from '../../kit/access.ts';
import type { Database } from '../../kit/db.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import { rememberDataSource } from '../lookup.ts';
import { identifyWithDataSource } from './authenticate.ts';
import type { JwtKeys } from './jwt.ts';
import { roleAtLeast, type Role } from './roles.ts';
import type { AuthUser } from './user.ts';

/**
 * Who may call a dashboard route, declared on the route (`config: { access }`, src/kit/access.ts):
 * - the kit's `PUBLIC`: anyone, not counted against a rate limit (the operational probes, the web app's files, CORS
 *   preflights), which a few page loads or a prober would otherwise use up;
 * - `OPEN`: anyone, counted against the address's limit (sign-in, refresh, first-run setup, the providers lists);
 * - `LINK_VISITOR`: anyone holding a public link's token, counted per address; the route itself looks the link up;
 * - `signedIn(role)`: a valid access token of a user with that role or above, counted against the tenant's limit;
 *   `viewerReading()` the same for a viewer's POST that only reads. A render's credential passes only
 *   the viewer's rules, and of them only GET routes and `viewerReading()`.
 */
export interface RoleRule extends AccessRule {
  readonly kind: 'role';
  readonly role: Role;
  /** The route's parameter naming a data source of the caller's tenant, read with the token (`signedInOnSource`). */
  readonly dataSourceParam?: string;
  /** A POST that only reads (`viewerReading`). */
  readonly reads?: true;
}

export const OPEN: AccessRule = Object.freeze({ kind: 'open' });
export const LINK_VISITOR: AccessRule = Object.freeze({ kind: 'publicLink' });

const rules = new Map<Role, RoleRule>();
/** Signed in with `role` or above (owner > admin > editor > viewer). */
export function signedIn(role: Role): RoleRule {
  let rule = rules.get(role);
  if (!rule) {
    rule = Object.freeze({ kind: 'role', role });
    rules.set(role, rule);
  }
  return rule;
}

const READING: RoleRule = Object.freeze({ kind: 'role', role: 'viewer', reads: true });
/**
 * `signedIn('viewer')` on a POST that only reads: a widget's run and a parameter's options, whose bodies carry the
 * dashboard's parameter values. A read-only credential (a render's) may call these and the viewer's GET
 * routes, and nothing else, whatever its user's role.
 */
export function viewerReading(): RoleRule {
  return READING;
}

const sourceRules = new Map<Role, RoleRule>();
/**
 * `signedIn(role)` on a route whose `:id` is a data source: the check reads the source with the token in one
 * statement, and the route takes it with `requestedDataSource` (lookup.ts). Who may call is exactly `signedIn(role)`.
 */
export function signedInOnSource(role: Role): RoleRule {
  let rule = sourceRules.get(role);
  if (!rule) {
    rule = Object.freeze({ kind: 'role', role, dataSourceParam: 'id' });
    sourceRules.set(role, rule);
  }
  return rule;
}

/** The id a route parameter holds, when it is one the route's schema will read as that same integer. */
function idParam(request: FastifyRequest, name: string | undefined): number | undefined {
  if (!name) return undefined;
  const raw = (request.params as Record<string, unknown> | undefined)?.[name];
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

export interface AccessDeps {
  db: Database;
  keys: JwtKeys;
  /** Set when authentication is disabled for local development: every signed-in route acts as this user. */
  devUser: AuthUser | undefined;
  /** The rate limiter, made once the app exists (it is a plugin of the app). */
  limiter: () => RateLimiter;
}

/**
 * The dashboard's checks, run by the kit's one onRequest hook before the body is read. The caller is counted before
 * being refused, so every answer of a counted route (401 and 403 included) carries the rate limit headers.
 */
export function dashboardAccess(deps: AccessDeps): AccessChecks {
  const countByAddress = (_rule: AccessRule, request: FastifyRequest, reply: FastifyReply) =>
    deps.limiter()(request, reply);
  return {
    open: countByAddress,
    publicLink: countByAddress,
    role: async (rule: RoleRule, request: FastifyRequest, reply: FastifyReply) => {
      if (deps.devUser) request.user = deps.devUser;
      else {
        const sourceId = idParam(request, rule.dataSourceParam);
        const found = await identifyWithDataSource(deps.db, deps.keys, request.headers.authorization, sourceId);
        request.user = found?.user ?? null;
        if (found && sourceId !== undefined) rememberDataSource(request, sourceId, found.dataSource);
      }
      await deps.limiter()(request, reply);
      if (!request.user) throw unauthorized();
      if (!roleAtLeast(request.user.role, rule.role))
        throw forbidden(`this needs the ${rule.role} role or above; you are ${request.user.role}`);
      if (request.user.readOnly && !readsAsViewer(rule, request.method))
        throw forbidden("a render's credential (a subscription's or a download's picture) only reads dashboards");
    },
  };
}

function readsAsViewer(rule: RoleRule, method: string): boolean {
  return rule.role === 'viewer' && (rule.reads === true || method === 'GET' || method === 'HEAD');
}
