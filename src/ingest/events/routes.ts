import { METHODS } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { HttpError } from '../../kit/errors.ts';
import { errorRef as ErrorBody } from '../../kit/errors.ts';
import { API_KEY, API_KEY_SECURITY, PUBLIC } from '../access.ts';
import { invalidBody, reasonOf } from '../errors.ts';
import type { IngestMetrics } from '../metrics.ts';
import { projectOfRequest, projectOfRequestIfAny } from './api-key.ts';
import type { LiveHub } from '../live/hub.ts';
import { acceptedRecords, refusedRequest, rejectedRecords } from '../live/records.ts';
import { discardRest, readBody, TOO_LARGE, type ReadBody } from './body.ts';
import { CommitUnavailableError } from './committer.ts';
import type { EventSink } from './sink.ts';
import { allowedRequestHeaders, type CorsPolicy } from './cors.ts';
import { excessOf } from './depth.ts';
import {
  EVENT_TYPES,
  MAX_BODY_BYTES,
  MAX_BODY_NESTING,
  MAX_BODY_VALUES,
  MAX_EVENTS_PER_BATCH,
  SCANNED_BODY_BYTES,
} from './fields.ts';
import { fastBatch } from './fast-batch.ts';
import { rawEvents } from './raw-events.ts';
import { answerUnavailable } from './unavailable.ts';
import type { SuppressionCache } from '../erasure/suppressions.ts';
import type { TrackingPlanCache } from '../tracking-plan/cache.ts';
import type { CompiledPlan } from '../tracking-plan/plan.ts';
import type { ViolationTally } from '../tracking-plan/violations.ts';
import { validateBatch, type ValidatedBatch } from './validate.ts';

export interface EventRoutesDeps {
  /** The group commit, or the log when it is on. */
  sink: EventSink;
  metrics: IngestMetrics;
  cors: CorsPolicy;
  retryAfterSeconds: number;
  commitTimeoutSeconds: number;
  bodyTimeoutSeconds: number;
  /** The live stream (src/ingest/live): told of accepted and rejected events while someone watches. */
  live?: LiveHub | undefined;
  /**
   * The projects' suppressed users (src/ingest/erasure): their events are dropped here, where every accepted event
   * passes whether the sink is PostgreSQL or the log, before anything is stored or published.
   */
  suppressions?: SuppressionCache | undefined;
  /**
   * The projects' tracking plans (src/ingest/tracking-plan), checked where events are validated, and the tally of
   * the events that break them.
   */
  trackingPlans?: { cache: TrackingPlanCache; tally: ViolationTally } | undefined;
}

/** What the body parser hands the handler: the text, a refusal it could only answer after reading, or nothing. */
type EventsBody = ReadBody | { refused: HttpError } | undefined;

/**
 * How much of an oversize upload is read and thrown away after its answer before the connection is cut instead: 64 MB,
 * for at most 30 s in all (nginx's `lingering_time`), a pause of INGEST_BODY_TIMEOUT_SECONDS ending it sooner.
 */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;
const DISCARD_LIMIT_MS = 30_000;

const IngestionResult = Type.Object({
  accepted: Type.Integer({
    description:
      "Events stored, including events already stored by an earlier request and events of a user an erasure suppresses (dropped, never stored: docs/ingest.md, 'Erasing a user's events')",
  }),
  rejected: Type.Integer(),
  errors: Type.Array(Type.Object({ index: Type.Integer(), error: Type.String({ description: '<field>: <reason>' }) })),
});

const EventDoc = Type.Object(
  {
    event_id: Type.String({ maxLength: 256 }),
    project_id: Type.String(),
    'session.id': Type.String(),
    'event.type': Type.Union([...EVENT_TYPES].map((t) => Type.Literal(t))),
    'event.timestamp': Type.String({ format: 'date-time' }),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true, description: 'See docs/ingest.md for every optional field' },
);

/**
 * Every method Node's HTTP parser knows (WebDAV's PROPFIND and MKCOL, QUERY, ...) but POST, OPTIONS (a preflight,
 * or 405 like these) and CONNECT (a tunnel request, which Node never hands to routes).
 */
const NOT_ALLOWED_METHODS = METHODS.filter((m) => m !== 'POST' && m !== 'OPTIONS' && m !== 'CONNECT');

/**
 * POST /v1/events, behind the API key check (api-key.ts, run by the kit before the body is read), and the answers to
 * every other method on that path, public: the method alone decides them, before the key is looked at.
 */
export function registerEventRoutes(app: App, deps: EventRoutesDeps): void {
  const { metrics, cors } = deps;

  const methodNotAllowed = () =>
    new HttpError(405, 'METHOD_NOT_ALLOWED', 'only POST is allowed on /v1/events', { headers: { allow: 'POST' } });

  // Fastify routes only the methods it has been told of; the others would be 404 rather than 405.
  for (const method of NOT_ALLOWED_METHODS) if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  const refuseMethod = async () => {
    throw methodNotAllowed();
  };
  // Answered in onRequest, before any body is parsed: whatever the body, its content type or its size, the method decides.
  // Described in /openapi.json by EVENTS_NOT_ALLOWED (one operation per method OpenAPI can name).
  app.route({
    method: NOT_ALLOWED_METHODS,
    url: '/v1/events',
    schema: { hide: true },
    config: { access: PUBLIC },
    onRequest: refuseMethod,
    handler: refuseMethod,
  });

  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!cors.isPreflight(request)) throw methodNotAllowed();
    const origin = request.headers.origin!;
    reply.header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    await cors.fresh();
    if (!cors.allows(origin)) {
      const message = `origin ${origin} may not send events: add it to the project's allowed origins or to INGEST_ALLOWED_ORIGINS`;
      // A preflight carries no key: the refusal is shown to whoever watches any project.
      if (deps.live?.watched(null))
        deps.live.offer([refusedRequest(null, 'origin_refused', message, origin, new Date())]);
      throw new HttpError(403, 'FORBIDDEN', message);
    }
    if (String(request.headers['access-control-request-method']).toUpperCase() !== 'POST') throw methodNotAllowed();
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-methods', 'POST');
    reply.header(
      'access-control-allow-headers',
      allowedRequestHeaders(request.headers['access-control-request-headers']),
    );
    reply.header('access-control-max-age', '600');
    return reply.code(204).send(null);
  };
  app.options(
    '/v1/events',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'preflightEvents',
        summary: 'CORS preflight',
        description:
          "From an origin of INGEST_ALLOWED_ORIGINS or of some project's allowed origins asking for POST: 204 allowing Content-Type, Content-Encoding, X-Svc-API-Key, X-Request-Id and any other request header the preflight names (a tracing library's `traceparent`, `tracestate`, `baggage`, `sentry-trace`, …).",
        tags: ['events'],
        response: { 204: Type.Null(), 403: ErrorBody, 405: ErrorBody },
      },
      // Also answered before any body is parsed, so an OPTIONS with a body is a 405 (or a preflight), never a 415.
      onRequest: preflight,
    },
    refuseMethod,
  );

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // The body is read here, under the 10 MB limit on the wire and after gzip, and parsed with plain JSON.parse:
    // the events are only validated and re-serialised, never merged into other objects, so a `__proto__` key is inert.
    // JSON only: any other content type (text/plain included) is answered 415.
    scope.removeAllContentTypeParsers();
    // The parser only reads the text; the handler parses and validates it in one synchronous step (see takeBatch).
    scope.addContentTypeParser('application/json', async (request: FastifyRequest) => {
      let body: ReadBody;
      try {
        // Bodies up to SCANNED_BODY_BYTES keep their bytes, from which the events are stored (raw-events.ts); the
        // larger ones are scanned for excess first and their events serialised, so a hostile upload holds no second copy.
        body = await readBody(request.raw, request.headers, MAX_BODY_BYTES, {
          idleTimeoutMs: deps.bodyTimeoutSeconds * 1000,
          keepBytesUpTo: SCANNED_BODY_BYTES,
        });
      } catch (err) {
        if (reasonOf(err) === TOO_LARGE) {
          discardRest(request.raw, {
            maxBytes: DISCARD_LIMIT_BYTES,
            idleTimeoutMs: deps.bodyTimeoutSeconds * 1000,
            maxMs: DISCARD_LIMIT_MS,
          });
          // Handed to the handler rather than thrown: Fastify closes the connection after a parser error, and the
          // client, still sending, would meet a reset instead of reading this answer.
          return { refused: err as HttpError } satisfies EventsBody;
        }
        throw err;
      }
      metrics.requestBytes.observe({ encoding: body.encoding }, body.bytes);
      return body;
    });

    scope.addHook('onError', async (request, _reply, error) => {
      const code = (error as { code?: string; statusCode?: number }).code;
      const status = (error as { statusCode?: number }).statusCode;
      if (status === undefined || status >= 500 || request.routeOptions.url !== '/v1/events') return;
      const reason = reasonOf(error) ?? rejectionReason(code, status);
      metrics.requestsRejected.inc({ reason });
      const projectId = projectOfRequestIfAny(request) ?? null;
      if (deps.live?.watched(projectId))
        deps.live.offer([refusedRequest(projectId, reason, error.message, request.headers.origin, new Date())]);
    });

    scope.post(
      '/v1/events',
      {
        config: { access: API_KEY },
        schema: {
          operationId: 'sendEvents',
          summary: 'Send a batch of events',
          tags: ['events'],
          security: API_KEY_SECURITY,
          body: Type.Object({ events: Type.Array(EventDoc, { maxItems: MAX_EVENTS_PER_BATCH }) }),
          response: {
            202: IngestionResult,
            400: ErrorBody,
            401: ErrorBody,
            405: ErrorBody,
            408: ErrorBody,
            415: ErrorBody,
            500: ErrorBody,
            503: ErrorBody,
          },
        },
        // Events are validated one by one by validateBatch (a bad event is rejected, not the request); the schema documents the shape.
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const body = request.body as unknown as EventsBody;
        if (body && 'refused' in body) throw body.refused;
        const projectId = projectOfRequest(request);
        // Read again only once per INGEST_KEY_CACHE_SECONDS, or after a change was announced: no query per batch.
        await deps.suppressions?.fresh();
        await deps.trackingPlans?.cache.fresh();
        const { prepared, rejections, received, suppressed, violations } = takeBatch(
          body,
          projectId,
          deps.suppressions?.of(projectId),
          deps.trackingPlans?.cache.of(projectId),
        );
        for (const v of violations) deps.trackingPlans!.tally.add(projectId, v.event, v.reason);
        // Someone watching sees the rejected events themselves: the batch is parsed again, for them only.
        const rejectedEvents =
          rejections.length && deps.live?.watched(projectId) ? eventsOf(body as ReadBody) : undefined;
        // The body's text and bytes are not needed while the events wait for their commit: let them go now.
        (request as { body: unknown }).body = undefined;
        if (prepared.count > 0) {
          const refused = await commitInTime(deps, prepared);
          if (refused)
            return answerUnavailable(
              request,
              reply,
              deps.retryAfterSeconds,
              `${refused}; nothing of this batch is acknowledged, retry later (retries are idempotent)`,
            );
        }
        // A suppressed user's events are answered as accepted, as Segment answers them: the SDK could only retry them.
        metrics.eventsAccepted.inc(prepared.count + suppressed);
        if (suppressed) metrics.eventsSuppressed.inc(suppressed);
        metrics.batchEvents.observe(received);
        for (const r of rejections) metrics.eventsRejected.inc({ reason: r.reason });
        if (deps.live?.watched(projectId)) {
          const now = new Date();
          if (prepared.count > 0) {
            const shown = acceptedRecords(projectId, prepared, now, deps.live.room());
            deps.live.offer(shown);
            deps.live.drop(projectId, prepared.count - shown.length);
          }
          if (rejections.length)
            deps.live.offer(rejectedRecords(projectId, rejections, rejectedEvents, request.headers.origin, now));
        }
        return reply.code(202).send({
          accepted: prepared.count + suppressed,
          rejected: rejections.length,
          errors: rejections.map((r) => ({ index: r.index, error: r.error })),
        });
      },
    );
  });
}

/**
 * Parses the body, checks the shape, validates every event and drops the parsed events, in one synchronous step:
 * only one request's parsed objects exist at any moment, however many requests arrive together, and they die young
 * in V8's nursery rather than being promoted while the request waits for its commit (8 requests of 1,000 parsed
 * events held for ~100 ms cost ~100 MB of RSS). Bodies that would cost far more to parse than their size (deep
 * nesting, millions of tiny values) are refused from the text, before the parser builds anything.
 */
function takeBatch(
  raw: ReadBody | undefined,
  projectId: string,
  suppressed: ReadonlySet<string> | undefined,
  plan: CompiledPlan | undefined,
): ValidatedBatch & { received: number } {
  // Most batches (an SDK's JSON.stringify output, every event valid) are read from their bytes alone; the others, and
  // every refusal, below. A project with a tracking plan goes the ordinary way: the plan reads custom fields (any key,
  // keys of metadata) that the pass over the bytes does not pick out.
  const fast = raw?.raw === undefined || plan ? undefined : fastBatch(raw.raw, projectId, suppressed);
  if (fast)
    return {
      prepared: fast.prepared,
      rejections: [],
      received: fast.received,
      suppressed: fast.suppressed,
      violations: [],
    };
  // No body at all (no Content-Type, nothing sent) or an empty one: not a batch.
  if (raw === undefined || raw.text.trim() === '')
    throw invalidBody('invalid_batch', 'the body must be a JSON object with an "events" array');
  const excess =
    raw.text.length > SCANNED_BODY_BYTES ? excessOf(raw.text, MAX_BODY_NESTING, MAX_BODY_VALUES) : undefined;
  if (excess === 'too_deep')
    throw invalidBody('too_deep', `the body nests objects and arrays more than ${MAX_BODY_NESTING} levels deep`);
  if (excess === 'too_many_values')
    throw invalidBody(
      'too_many_values',
      `the body holds more than ${MAX_BODY_VALUES.toLocaleString('en')} JSON values (objects, arrays, members and elements)`,
    );
  let body: unknown;
  try {
    body = JSON.parse(raw.text);
  } catch (err) {
    throw invalidBody('invalid_json', `the body is not valid JSON: ${(err as Error).message}`);
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    !Array.isArray((body as { events?: unknown }).events)
  ) {
    throw invalidBody('invalid_batch', 'the body must be a JSON object with an "events" array');
  }
  const events = (body as { events: unknown[] }).events;
  if (events.length > MAX_EVENTS_PER_BATCH) {
    throw invalidBody(
      'batch_too_large',
      `a batch holds at most ${MAX_EVENTS_PER_BATCH.toLocaleString('en')} events (got ${events.length.toLocaleString('en')})`,
    );
  }
  // The events' own bytes, where they are exactly what serialising them would give (raw-events.ts).
  const bytes = raw.raw === undefined ? undefined : rawEvents(raw.raw, events.length);
  return { ...validateBatch(events, projectId, bytes, suppressed, plan), received: events.length };
}

/** A batch's events parsed again from its text, for the live stream's rejected events; undefined if it cannot be. */
function eventsOf(body: ReadBody): unknown[] | undefined {
  try {
    const parsed = JSON.parse(body.text) as { events?: unknown };
    return Array.isArray(parsed.events) ? parsed.events : undefined;
  } catch {
    return undefined;
  }
}

/** Commits the events within the time limit; returns why not when the database cannot take them now. */
async function commitInTime(
  deps: EventRoutesDeps,
  prepared: Parameters<EventSink['commit']>[0],
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new CommitUnavailableError('the events were not stored in time')),
      deps.commitTimeoutSeconds * 1000,
    );
  });
  try {
    await Promise.race([deps.sink.commit(prepared), late]);
    return undefined;
  } catch (err) {
    if (err instanceof CommitUnavailableError) return err.message;
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
  if (status === 408) return 'request_timeout';
  return 'invalid_request';
}
