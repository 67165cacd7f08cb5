import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CorsPolicy {
  /** Adds the CORS answer headers to a request from an allowed origin; does nothing otherwise. */
  decorate(request: FastifyRequest, reply: FastifyReply): void;
  /** Whether a request is a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
  isPreflight(request: FastifyRequest): boolean;
  allows(origin: string): boolean;
}

/** Headers a browser client may always send: the API key, and gzip bodies. */
export const ALLOWED_REQUEST_HEADERS = 'Content-Type, Content-Encoding, X-Svc-API-Key, X-Request-Id';
/** A header name as RFC 9110 spells one (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The answer's Access-Control-Allow-Headers: the SDK's own headers and whatever else the preflight asks for.
 * Tracing libraries on the page (OpenTelemetry's fetch instrumentation, Sentry, Datadog RUM, New Relic) add their
 * own headers (`traceparent`, `tracestate`, `baggage`, `sentry-trace`, `x-datadog-*`, `b3`, `newrelic`, …) to the
 * SDK's requests too, and a list of ours would always miss one, blocking every event of such a page. Allowing any
 * header costs nothing here: the service reads only its own headers, authenticates by the API key rather than by
 * cookies (no Allow-Credentials), so an extra header cannot make a request do more than the key lets it.
 * Names that are not header names are left out rather than echoed.
 */
export function allowedRequestHeaders(requested: string | undefined): string {
  const extra = (requested ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => HEADER_NAME.test(h));
  const own = ALLOWED_REQUEST_HEADERS.toLowerCase().split(', ');
  return [ALLOWED_REQUEST_HEADERS, ...new Set(extra.filter((h) => !own.includes(h)))].join(', ');
}
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
    isPreflight: (request) =>
      request.method === 'OPTIONS' &&
      typeof request.headers.origin === 'string' &&
      typeof request.headers['access-control-request-method'] === 'string',
    decorate(request, reply) {
      const origin = request.headers.origin;
      reply.header('vary', 'Origin');
      if (typeof origin !== 'string' || !allows(origin)) return;
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    },
  };
}
