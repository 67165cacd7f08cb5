import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { unauthorized } from '../errors.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import { identify } from './authenticate.ts';
import type { JwtKeys } from './jwt.ts';
import type { AuthUser } from './user.ts';

/** The kit's own routes, the same on every service: open, and not counted against a rate limit (probes call them often). */
const KIT_ROUTES = new Set(['/health', '/ready', '/metrics', '/openapi.json']);

export interface AuthHookOptions {
  db: Database;
  keys: JwtKeys;
  limiter: RateLimiter;
  /** Set when authentication is disabled for local development: every request acts as this user. */
  devUser: AuthUser | undefined;
}

/**
 * One hook in front of every route: find out who is calling, count the request against the caller's
 * rate limit (the tenant's, or the address's before sign-in), then refuse an unauthenticated caller
 * on routes that need a token. Counting before refusing means every answer carries the limit headers.
 */
export function registerAuthHook(app: App, options: AuthHookOptions): void {
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (request, reply) => {
    // Unknown routes answer 404 whoever asks.
    if (request.routeOptions.url === undefined) return;
    const config = request.routeOptions.config;
    const operations = KIT_ROUTES.has(request.routeOptions.url);
    const open = operations || config.auth === false;
    if (!open) {
      request.user =
        options.devUser ?? (await identify(options.db, options.keys, request.headers.authorization)) ?? null;
    }
    if (!operations && config.rateLimit !== false) await options.limiter(request, reply);
    if (!open && !request.user) throw unauthorized();
  });
}
