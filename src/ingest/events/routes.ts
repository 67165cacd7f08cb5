import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { HttpError } from '../../kit/errors.ts';
import { errorRef as ErrorBody } from '../../kit/errors.ts';
import type { IngestMetrics } from '../metrics.ts';
import type { KeyResolver } from '../projects/key-resolver.ts';
import { readBody } from './body.ts';
import { CommitUnavailableError, isUnavailable, type Committer } from './committer.ts';
import { ALLOWED_REQUEST_HEADERS, createCorsPolicy } from './cors.ts';
import { EVENT_TYPES, MAX_BODY_BYTES, MAX_EVENTS_PER_BATCH } from './fields.ts';
import { validateBatch, type ValidatedBatch } from './validate.ts';

export interface EventRoutesDeps {
  keys: KeyResolver;
  committer: Committer;
  metrics: IngestMetrics;
  allowedOrigins: readonly string[];
  retryAfterSeconds: number;
  commitTimeoutSeconds: number;
}

const IngestionResult = Type.Object({
  accepted: Type.Integer({ description: 'Events stored, including events already stored by an earlier request' }),
  rejected: Type.Integer(),
  errors: Type.Array(Type.Object({ index: Type.Integer(), error: Type.String({ description: '<field>: <reason>' }) })),
});

const EventDoc = Type.Object({
  event_id: Type.String({ maxLength: 256 }),
  project_id: Type.String(),
  'session.id': Type.String(),
  'event.type': Type.Union([...EVENT_TYPES].map((t) => Type.Literal(t))),
  'event.timestamp': Type.String({ format: 'date-time' }),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: true, description: 'See docs/ingest.md for every optional field' });

const NOT_ALLOWED_METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'QUERY'] as const;

/** POST /v1/events and the answers to every other method on that path. */
export function registerEventRoutes(app: App, deps: EventRoutesDeps): void {
  const cors = createCorsPolicy(deps.allowedOrigins);
  const projectOf = new WeakMap<FastifyRequest, string>();
  const retryAfter = { 'retry-after': String(deps.retryAfterSeconds) };
  const { metrics } = deps;

  const methodNotAllowed = () => new HttpError(405, 'METHOD_NOT_ALLOWED', 'only POST is allowed on /v1/events', { headers: { allow: 'POST' } });

  app.route({
    method: [...NOT_ALLOWED_METHODS],
    url: '/v1/events',
    schema: { hide: true },
    handler: async () => {
      throw methodNotAllowed();
    },
  });

  app.options('/v1/events', { schema: { summary: 'CORS preflight', tags: ['events'], response: { 204: Type.Null(), 403: ErrorBody, 405: ErrorBody } } }, async (request, reply) => {
    if (!cors.isPreflight(request)) throw methodNotAllowed();
    const origin = request.headers.origin!;
    reply.header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    if (!cors.allows(origin)) throw new HttpError(403, 'FORBIDDEN', `origin ${origin} may not send events: add it to INGEST_ALLOWED_ORIGINS`);
    if (String(request.headers['access-control-request-method']).toUpperCase() !== 'POST') throw methodNotAllowed();
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-methods', 'POST');
    reply.header('access-control-allow-headers', ALLOWED_REQUEST_HEADERS);
    reply.header('access-control-max-age', '600');
    return reply.code(204).send(null);
  });

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // The body is read here, under the 10 MB limit on the wire and after gzip, and parsed with plain JSON.parse:
    // the events are only validated and re-serialised, never merged into other objects, so a `__proto__` key is inert.
    // JSON only: any other content type (text/plain included) is answered 415.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', async (request: FastifyRequest) => {
      const body = await readBody(request.raw, request.headers, MAX_BODY_BYTES);
      metrics.requestBytes.observe({ encoding: body.encoding }, body.bytes);
      try {
        return JSON.parse(body.text);
      } catch (err) {
        throw new HttpError(400, 'VALIDATION_ERROR', `the body is not valid JSON: ${(err as Error).message}`, { details: { reason: 'invalid_json' } });
      }
    });

    scope.addHook('onRequest', async (request, reply) => {
      cors.decorate(request, reply);
      const key = request.headers['x-svc-api-key'];
      if (typeof key !== 'string' || key.length === 0) throw new HttpError(401, 'UNAUTHORIZED', 'missing API key: send it in the X-Svc-API-Key header');
      let projectId: string | undefined;
      try {
        projectId = await deps.keys.projectOf(key);
      } catch (err) {
        if (isUnavailable(err)) throw new HttpError(503, 'UNAVAILABLE', 'the database is unavailable; retry later', { headers: retryAfter });
        throw err;
      }
      if (!projectId) throw new HttpError(401, 'UNAUTHORIZED', 'invalid or revoked API key');
      projectOf.set(request, projectId);
    });

    scope.addHook('onError', async (request, _reply, error) => {
      const code = (error as { code?: string; statusCode?: number }).code;
      const status = (error as { statusCode?: number }).statusCode;
      const reason = error instanceof HttpError ? error.details?.reason : undefined;
      if (status !== undefined && status < 500 && request.routeOptions.url === '/v1/events') metrics.requestsRejected.inc({ reason: typeof reason === 'string' ? reason : rejectionReason(code, status) });
    });

    scope.post('/v1/events', {
      schema: {
        summary: 'Send a batch of events',
        tags: ['events'],
        security: [{ apiKey: [] }],
        body: Type.Object({ events: Type.Array(EventDoc, { maxItems: MAX_EVENTS_PER_BATCH }) }),
        response: { 202: IngestionResult, 400: ErrorBody, 401: ErrorBody, 405: ErrorBody, 415: ErrorBody, 503: ErrorBody },
      },
      // Events are validated one by one by validateBatch (a bad event is rejected, not the request); the schema documents the shape.
      validatorCompiler: () => () => true,
    }, async (request, reply) => {
      const { prepared, rejections, received } = takeBatch(request.body, projectOf.get(request)!);
      if (prepared.count > 0) await commitInTime(deps, prepared, retryAfter);
      metrics.eventsAccepted.inc(prepared.count);
      metrics.batchEvents.observe(received);
      for (const r of rejections) metrics.eventsRejected.inc({ reason: r.reason });
      return reply.code(202).send({
        accepted: prepared.count,
        rejected: rejections.length,
        errors: rejections.map((r) => ({ index: r.index, error: r.error })),
      });
    });
  });
}

/**
 * Checks the shape, validates every event and detaches the parsed events from the request body, all before the
 * handler awaits its commit: only the prepared bytes wait, and the parsed events die young in V8's nursery rather
 * than being promoted (8 requests of 1,000 parsed events held for ~100 ms cost ~100 MB of RSS).
 */
function takeBatch(body: unknown, projectId: string): ValidatedBatch & { received: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Array.isArray((body as { events?: unknown }).events)) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'the body must be a JSON object with an "events" array', { details: { reason: 'invalid_batch' } });
  }
  const events = (body as { events: unknown[] }).events;
  if (events.length > MAX_EVENTS_PER_BATCH) {
    throw new HttpError(400, 'VALIDATION_ERROR', `a batch holds at most ${MAX_EVENTS_PER_BATCH.toLocaleString('en')} events (got ${events.length.toLocaleString('en')})`, { details: { reason: 'batch_too_large' } });
  }
  (body as { events?: unknown }).events = undefined;
  return { ...validateBatch(events, projectId), received: events.length };
}

async function commitInTime(deps: EventRoutesDeps, prepared: Parameters<Committer['commit']>[0], retryAfter: Record<string, string>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CommitUnavailableError('the events were not committed in time')), deps.commitTimeoutSeconds * 1000);
  });
  try {
    await Promise.race([deps.committer.commit(prepared), late]);
  } catch (err) {
    if (err instanceof CommitUnavailableError) {
      throw new HttpError(503, 'UNAVAILABLE', `${err.message}; nothing of this batch is acknowledged, retry later (retries are idempotent)`, { headers: retryAfter });
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function rejectionReason(code: string | undefined, status: number): string {
  if (status === 401) return 'unauthorized';
  if (status === 405) return 'method_not_allowed';
  if (status === 415) return 'unsupported_media_type';
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'unsupported_media_type';
  if (status === 403) return 'forbidden';
  return 'invalid_request';
}
