import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CorsPolicy {
  /** Adds the CORS answer headers to a request from an allowed origin; does nothing otherwise. */
  decorate(request: FastifyRequest, reply: FastifyReply): void;
  /** Whether a request is a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
  isPreflight(request: FastifyRequest): boolean;
  allows(origin: string): boolean;
}

/** Headers a browser client may send: the API key, and gzip bodies. */
export const ALLOWED_REQUEST_HEADERS = 'Content-Type, Content-Encoding, X-Svc-API-Key, X-Request-Id';
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id';

/**
 * CORS for /v1/events only, written here rather than with @fastify/cors because that plugin answers every
 * OPTIONS itself, while the contract wants a plain OPTIONS on /v1/events to be a 405 like any other method.
 */
export function createCorsPolicy(allowedOrigins: readonly string[]): CorsPolicy {
  const any = allowedOrigins.includes('*');
  const origins = new Set(allowedOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  const allows = (origin: string) => any || origins.has(origin.toLowerCase());
  return {
    allows,
    isPreflight: (request) => request.method === 'OPTIONS' && typeof request.headers.origin === 'string' && typeof request.headers['access-control-request-method'] === 'string',
    decorate(request, reply) {
      const origin = request.headers.origin;
      reply.header('vary', 'Origin');
      if (typeof origin !== 'string' || !allows(origin)) return;
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    },
  };
}
