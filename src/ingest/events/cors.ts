import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProjectOriginCache } from '../projects/origin-cache.ts';

export interface CorsPolicy {
  /** Adds the CORS answer headers to a request from an origin of INGEST_ALLOWED_ORIGINS; does nothing otherwise. */
  decorate(request: FastifyRequest, reply: FastifyReply): void;
  /** Once the key is known: adds them for an origin its project allows (when `decorate` did not already). */
  decorateFor(request: FastifyRequest, reply: FastifyReply, projectId: string): void;
  /** Whether a request is a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
  isPreflight(request: FastifyRequest): boolean;
  /** Whether INGEST_ALLOWED_ORIGINS or some project allows the origin: a preflight carries no key. */
  allows(origin: string): boolean;
  /** Resolves once the projects' origins are read recently enough (at once when they are, or when there are none). */
  fresh(): Promise<void>;
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
 * An origin is allowed for every project by INGEST_ALLOWED_ORIGINS, or for one project by its own list
 * (`projects`, set from the console): a preflight passes for an origin some project allows, and the answer to the
 * POST then carries the CORS headers only when the key's project allows it.
 */
export function createCorsPolicy(allowedOrigins: readonly string[], projects?: ProjectOriginCache): CorsPolicy {
  const any = allowedOrigins.includes('*');
  const origins = new Set(allowedOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  const everywhere = (origin: string) => any || origins.has(origin.toLowerCase());
  const allow = (reply: FastifyReply, origin: string) => {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  };
  return {
    allows: (origin) => everywhere(origin) || (projects?.anyAllows(origin) ?? false),
    fresh: () => projects?.fresh() ?? Promise.resolve(),
    isPreflight: (request) =>
      request.method === 'OPTIONS' &&
      typeof request.headers.origin === 'string' &&
      typeof request.headers['access-control-request-method'] === 'string',
    decorate(request, reply) {
      const origin = request.headers.origin;
      reply.header('vary', 'Origin');
      if (typeof origin === 'string' && everywhere(origin)) allow(reply, origin);
    },
    decorateFor(request, reply, projectId) {
      const origin = request.headers.origin;
      if (typeof origin !== 'string' || everywhere(origin) || !projects?.projectAllows(projectId, origin)) return;
      allow(reply, origin);
    },
  };
}
