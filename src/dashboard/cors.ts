import type { FastifyReply } from 'fastify';
import { PUBLIC } from '../kit/access.ts';
import type { App } from '../kit/app.ts';
import { notFound, validation } from './errors.ts';

export interface CorsSettings {
  /** Origins whose scripts may call the API; `*` for any; none: browsers on other origins are refused. */
  origins: string[];
  methods: string[];
  headers: string[];
}

/** Headers a script on an allowed origin may read. */
const EXPOSED = [
  'ETag',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
];
const MAX_AGE_SECONDS = 600;

/**
 * CORS for the API. Not @fastify/cors: its preflight route cannot declare who may call it, and its headers would be
 * set by a hook that runs after the access check, so a refusal (401, 429) would reach a script without them and the
 * script could not read why. Here the headers go on every answer (`onSend`), and the preflight is a public route.
 */
export function registerCors(app: App, settings: CorsSettings): void {
  const any = settings.origins.includes('*');
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
    if (request.method !== 'OPTIONS' && allowOrigin(reply, request.headers.origin))
      reply.header('access-control-expose-headers', EXPOSED.join(', '));
    return payload;
  });

  app.options(
    '*',
    {
      config: { access: PUBLIC },
      schema: { hide: true },
    },
    async (request, reply) => {
      if (settings.origins.length === 0) throw notFound(`route OPTIONS ${request.url.split('?')[0]}`);
      if (request.headers.origin === undefined || request.headers['access-control-request-method'] === undefined)
        throw validation('not a CORS preflight: Origin and Access-Control-Request-Method are required');
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
