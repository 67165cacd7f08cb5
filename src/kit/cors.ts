import type { FastifyReply } from 'fastify';
import { PUBLIC } from './access.ts';
import type { App } from './app.ts';
import { list, type Variable } from './config.ts';
import { HttpError } from './errors.ts';

export interface CorsSettings {
  /** Origins whose scripts may call the API; `*` for any; none: browsers on other origins are refused. */
  origins: readonly string[];
  methods: readonly string[];
  headers: readonly string[];
  /** The paths it covers (`/api/v1/`); every path by default. */
  prefix?: string;
}

/** Headers a script on an allowed origin may read. */
const EXPOSED = [
  'ETag',
  'Location',
  'WWW-Authenticate',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
];
const MAX_AGE_SECONDS = 600;

/** The methods and request headers an admin API takes from a browser: the console's calls. */
export const API_CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const API_CORS_HEADERS = ['Authorization', 'Content-Type', 'DPoP', 'If-Match'];

/** `<SERVICE>_CORS_ORIGINS`: the browser origins allowed to call a service's `/api/v1` (the console's, when not linked). */
export function corsOriginsVariable(service: string, linked: string): Variable<string[]> {
  return list(`${service.toUpperCase()}_CORS_ORIGINS`, {
    default: [],
    doc: `Comma-separated browser origins (\`https://console.example.com\`) whose scripts may call the ${service} API under \`/api/v1\`; \`*\` allows any. ${linked} Empty: no other origin.`,
  });
}

/**
 * CORS for a service's API, one implementation for every service. Not @fastify/cors: its preflight route cannot declare
 * who may call it, and its headers would be set by a hook that runs after the access check, so a refusal (401, 429)
 * would reach a script without them and the script could not read why. Here the headers go on every answer under the
 * prefix (`onSend`, which runs for errors too), and the preflight is a public route.
 */
export function registerCors(app: App, settings: CorsSettings): void {
  const prefix = settings.prefix ?? '/';
  const any = settings.origins.includes('*');
  const covered = (url: string) => url.startsWith(prefix);
  const allowed = (origin: string | undefined): origin is string =>
    origin !== undefined && (any || settings.origins.includes(origin));
  const allowOrigin = (reply: FastifyReply, origin: string | undefined): boolean => {
    if (settings.origins.length === 0) return false;
    const vary = reply.getHeader('vary');
    if (!String(vary ?? '').match(/(^|,\s*)origin(\s*,|$)/i)) reply.header('vary', vary ? `${vary}, Origin` : 'Origin');
    if (!allowed(origin)) return false;
    reply.header('access-control-allow-origin', origin);
    return true;
  };

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'OPTIONS' && covered(request.url) && allowOrigin(reply, request.headers.origin))
      reply.header('access-control-expose-headers', EXPOSED.join(', '));
    return payload;
  });

  app.options(
    // `*` rather than `/*` for every path: the same route as before the kit had it (the dashboard's).
    prefix === '/' ? '*' : `${prefix}*`,
    {
      config: { access: PUBLIC },
      schema: { hide: true },
    },
    async (request, reply) => {
      const path = request.url.split('?')[0];
      if (settings.origins.length === 0) throw new HttpError(404, 'NOT_FOUND', `route OPTIONS ${path} not found`);
      if (request.headers.origin === undefined || request.headers['access-control-request-method'] === undefined)
        throw new HttpError(
          400,
          'VALIDATION_ERROR',
          'not a CORS preflight: Origin and Access-Control-Request-Method are required',
        );
      if (allowOrigin(reply, request.headers.origin)) {
        reply
          .header('access-control-allow-methods', settings.methods.join(', '))
          .header('access-control-allow-headers', settings.headers.join(', '))
          .header('access-control-max-age', String(MAX_AGE_SECONDS));
      }
      return reply.code(204).send();
    },
  );
}
