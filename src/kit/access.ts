import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Who may call a route, declared where the route is defined (`config: { access }`) and enforced by one
 * `onRequest` hook of the app, before the body is read, so an unauthenticated caller is 401 whatever it sent.
 * `kind` picks the service's check; the other fields are the check's own (a role, a scope).
 *
 *   app.get('/health', { config: { access: PUBLIC } }, handler);
 *   app.post('/api/v1/query', { config: { access: { kind: 'role', role: 'editor' } } }, handler);
 *
 * A route without a declaration cannot be registered on an app that enforces access: refused by default.
 */
export interface AccessRule {
  readonly kind: string;
}

/** Open to everyone: the operational probes, OAuth's own endpoints, sign-in pages, the events endpoint's preflight. */
export const PUBLIC: AccessRule = Object.freeze({ kind: 'public' });

/**
 * A service's checks, one per kind of rule it declares. A check throws an `HttpError` (401, 403, 503) to refuse,
 * or may answer itself (a redirect to a sign-in page) through `reply`. A `public` check, when given, runs on
 * public routes too (a rate limit counted before anything else); without it public routes pass untouched.
 */
export type AccessChecks = Record<
  string,
  (rule: never, request: FastifyRequest, reply: FastifyReply) => Promise<void> | void
>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route; see src/kit/access.ts. */
    access?: AccessRule;
  }
}

/** The rule a route declared, or undefined when it declared none. */
export function accessOf(config: unknown): AccessRule | undefined {
  const access = (config as { access?: unknown } | undefined)?.access;
  return access && typeof (access as AccessRule).kind === 'string' ? (access as AccessRule) : undefined;
}

/** Throws when a route declares no rule, or one of a kind the service has no check for: the app does not start. */
export function assertDeclared(method: string, url: string, config: unknown, checks: AccessChecks): void {
  const rule = accessOf(config);
  if (!rule)
    throw new Error(
      `route ${method} ${url} declares no access: add config.access (PUBLIC or one of: ${Object.keys(checks).join(', ')})`,
    );
  if (rule.kind !== 'public' && !Object.hasOwn(checks, rule.kind)) {
    throw new Error(`route ${method} ${url} declares access of kind '${rule.kind}', which this service does not check`);
  }
}

/** The one enforcement: the declared rule's check, before the body is parsed. */
export async function enforceAccess(checks: AccessChecks, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // Unknown routes answer 404 whoever asks.
  if (request.routeOptions.url === undefined) return;
  const rule = accessOf(request.routeOptions.config);
  if (!rule) throw new Error(`route ${request.method} ${request.routeOptions.url} declares no access`);
  const check = Object.hasOwn(checks, rule.kind) ? checks[rule.kind] : undefined;
  if (!check) {
    if (rule.kind === 'public') return;
    throw new Error(`no check for access kind '${rule.kind}'`);
  }
  await (check as (rule: AccessRule, request: FastifyRequest, reply: FastifyReply) => Promise<void> | void)(
    rule,
    request,
    reply,
  );
}
