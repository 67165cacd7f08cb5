import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyBaseLogger,
  type RawServerDefault,
  type RawRequestDefaultExpression,
  type RawReplyDefaultExpression,
} from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody, HttpError, codeForStatus, standardErrorBody, type ApiError } from './errors.ts';
import { RequestLogController, loggerOptions, type LogLevel } from './logger.ts';
import { isDatabaseUnavailable, type Database } from './db.ts';
import { registerHealthRoutes, type ReadinessCheck } from './health.ts';
import { Registry, registerMetrics } from './metrics.ts';
import { createOutageLog, type OutageLog } from './outage-log.ts';
import { partAwareValidator } from './validation.ts';
import { acceptEmptyJsonBodies } from './empty-json.ts';
import { PUBLIC, accessOf, assertDeclared, enforceAccess, type AccessChecks, type AccessRule } from './access.ts';

/** `Retry-After` of a 503 answered while the database cannot be reached, unless the service sets its own. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's id: the caller's `x-request-id` when it looks like one, so a header cannot fill logs with arbitrary text. */
export function requestIdOf(req: { headers: IncomingHttpHeaders }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

const outages = new WeakMap<object, OutageLog>();

/** The app's log of database outages: a service's code that answers 503 itself reports there, so an outage is logged once. */
export function databaseOutage(app: App): OutageLog {
  const outage = outages.get(app);
  if (!outage) throw new Error('not an app made by createApp');
  return outage;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface AppOptions {
  name: string;
  version: string;
  description?: string;
  logLevel: LogLevel;
  /** Largest request body accepted by default, in bytes (routes may set their own). */
  bodyLimit?: number;
  /**
   * Shapes an error into the service's contract; Document 1's `{error:{code,message}}` by default. Gets the
   * request so a service whose contract fixes another shape on some paths (OAuth's) keeps the platform's elsewhere.
   */
  errorBody?: (error: ApiError, request: FastifyRequest) => unknown;
  /** Lets a service reclassify an error before it is shaped (for example 413 answered as 400 by its contract). */
  classify?: (error: ApiError, raw: unknown) => ApiError;
  /** `Retry-After` of the 503 answered while the database cannot be reached (seconds, 5 by default). */
  retryAfterSeconds?: number;
  /**
   * The service's database, opened and migrated: `/health` and `/ready` (database reachable, every
   * migration of `migrations` applied, the service's own `checks`) come with it, and it is closed
   * last when the app closes, after every other onClose hook (background work still has it).
   */
  database?: {
    db: Database;
    migrations: URL;
    checks?: ReadinessCheck[];
    version?: string;
    /** More for `/ready` to say beside its status (kit/health.ts). */
    details?: () => Promise<Record<string, unknown>>;
  };
  /**
   * The service's access checks, one per kind of rule its routes declare (src/kit/access.ts): every route must then
   * declare `config.access`, and one onRequest hook enforces it before the body is read.
   */
  access?: AccessChecks;
  /** The registry of the service's own metrics, served at `/metrics` with the kit's; a new one by default. */
  metrics?: Registry;
  /**
   * Parts of the OpenAPI document not derived from routes: security schemes and other components, tags,
   * `servers` (the document's own origin by default), and `paths` served by something other than a
   * Fastify route schema (identity's OAuth endpoints, answered by the provider).
   */
  openapi?: {
    components?: Record<string, unknown>;
    tags?: { name: string; description?: string }[];
    servers?: { url: string; description?: string }[];
    paths?: Record<string, unknown>;
  };
}

/** A route as registered, for checks that every route is documented (see test/kit/openapi.test.ts). */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** Left out of /openapi.json on purpose (`schema.hide`), for example because `openapi.paths` describes it. */
  hidden: boolean;
  /** Who may call it, as the route declared (`config.access`); undefined on an app that does not enforce access. */
  access: AccessRule | undefined;
}

const registered = new WeakMap<object, RegisteredRoute[]>();

/** Every route the app registered, one entry per method. */
export function registeredRoutes(app: App): RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/**
 * The Fastify instance every service starts from: pino logging with a request id echoed in
 * `x-request-id`, TypeBox schemas, `/openapi.json` generated from the route schemas, and one error
 * handler that answers in the service's own shape and never leaks internals on a 500.
 */
export async function createApp(options: AppOptions): Promise<App> {
  const errorBody = options.errorBody ?? standardErrorBody;
  const classify = options.classify ?? ((e: ApiError) => e);
  const app = Fastify({
    logger: loggerOptions(options.name, options.logLevel),
    logController: new RequestLogController(),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    requestIdHeader: false,
    genReqId: requestIdOf,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Query, path parameters and headers are text and are coerced to their schema's types; JSON bodies are not.
    schemaController: { compilersFactory: { buildValidator: partAwareValidator() } },
    // Errors raised before routing (a malformed URL) get the service's shape too, not Fastify's default.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      const info = classify(toApiError(error, request.id), error);
      reply.code(info.statusCode).type('application/json; charset=utf-8').send(errorBody(info, request));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON APIs: a text/plain body is an unsupported media type (415), not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonBodies(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Requests still in flight at shutdown finish, then their keep-alive connections close, so shutdown
  // does not wait out the keep-alive timeout of clients that would otherwise hold the socket open.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });

  // Registered first so it runs last: onClose hooks run in reverse order of registration.
  const database = options.database;
  if (database) {
    app.addHook('onClose', async () => {
      await database.db.close();
    });
  }

  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  const checks = options.access;
  app.addHook('onRoute', (route) => {
    const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide);
    for (const method of [route.method].flat()) {
      if (checks) assertDeclared(method, route.url, route.config, checks);
      routes.push({ method, url: route.url, hidden, access: accessOf(route.config) });
    }
  });
  if (checks) {
    // The first hook after the request id: who may call is settled before anything else reads the request.
    app.addHook('onRequest', async (request, reply) => {
      await enforceAccess(checks, request, reply);
    });
  }

  // Awaited so its onRoute hook sees every route the service declares afterwards.
  await app.register(swagger, {
    // Shared schemas keep their `$id` as their component name (`#/components/schemas/Error`).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: options.name,
        version: options.version,
        ...(options.description ? { description: options.description } : {}),
      },
      servers: options.openapi?.servers ?? [{ url: '/', description: 'the origin this document is served from' }],
      ...(options.openapi?.components ? { components: options.openapi.components } : {}),
      ...(options.openapi?.tags ? { tags: options.openapi.tags } : {}),
      // The paths a service describes by hand are plain OpenAPI objects; the validation test checks them.
      ...(options.openapi?.paths ? { paths: structuredClone(options.openapi.paths) as never } : {}),
    },
  });
  // The error body is one component (`#/components/schemas/Error`) that routes reference with `errorRef`.
  app.addSchema(ErrorBody);
  app.register(async (scope) => {
    scope.get(
      '/openapi.json',
      {
        config: { access: PUBLIC },
        schema: { operationId: 'getOpenApiDocument', summary: 'This document', tags: ['operations'] },
      },
      async () => app.swagger(),
    );
  });
  if (database) registerHealthRoutes(app, database);
  registerMetrics(app, options.metrics ?? new Registry(), database?.db);

  // One per app, shared with the service's own code that meets the database (databaseOutage(app)).
  const outage = createOutageLog(app.log);
  outages.set(app, outage);
  // Back once a route that works with the database succeeds again; the operational routes answer
  // without it and would report every probe as a recovery.
  const withoutDatabase = new Set(['/health', '/metrics', '/openapi.json']);
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode < 400 && !withoutDatabase.has(request.routeOptions.url ?? '')) outage.succeeded();
  });
  const retryAfter = String(options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);

  app.setErrorHandler((raw: FastifyError | HttpError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (!(raw instanceof HttpError) && isDatabaseUnavailable(raw)) {
      // The database dropped or refused the connection: the pool replaces it on its own, so the caller retries.
      outage.failed(raw);
      const info = classify(
        {
          statusCode: 503,
          code: codeForStatus(503),
          message: 'the database is unavailable; retry later',
          requestId: request.id,
        },
        raw,
      );
      reply
        .header('retry-after', retryAfter)
        .code(info.statusCode)
        .type('application/json; charset=utf-8')
        .send(errorBody(info, request));
      return;
    }
    const info = classify(toApiError(raw, request.id), raw);
    if (info.statusCode >= 500) request.log.error({ err: raw }, 'request failed');
    // A refusal is the caller's to act on (it has the answer): debug, like the request's own line (kit/logger.ts).
    else request.log.debug({ code: info.code, status: info.statusCode }, info.message);
    if (raw instanceof HttpError) reply.headers(raw.headers);
    reply.code(info.statusCode).type('application/json; charset=utf-8').send(errorBody(info, request));
  });

  app.setNotFoundHandler((request, reply) => {
    const info = classify(
      {
        statusCode: 404,
        code: 'NOT_FOUND',
        message: `no route for ${request.method} ${request.url.split('?')[0]}`,
        requestId: request.id,
      },
      undefined,
    );
    reply.code(info.statusCode).send(errorBody(info, request));
  });

  return app;
}

function toApiError(err: unknown, requestId: string): ApiError {
  if (err instanceof HttpError)
    return { statusCode: err.statusCode, code: err.code, message: err.message, requestId, details: err.details };
  const e = err as FastifyError;
  if (e.validation) {
    // Ajv's "must NOT have additional properties" does not say which one: each such error names its property, in order.
    const extra = e.validation
      .filter((v) => v.keyword === 'additionalProperties')
      .map((v) => String((v.params as { additionalProperty?: unknown }).additionalProperty));
    const named = e.message.replace(/must NOT have additional properties/g, (m) =>
      extra.length ? `${m} ('${extra.shift()}')` : m,
    );
    return {
      statusCode: 400,
      code: 'VALIDATION_ERROR',
      message: `${e.validationContext ?? 'request'}${named.startsWith('/') ? '' : ' '}${named.replace(/^(body|querystring|params|headers)\s*/, '')}`,
      requestId,
    };
  }
  const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
  if (status >= 500)
    return { statusCode: status, code: codeForStatus(status), message: 'internal server error', requestId };
  return { statusCode: status, code: codeForStatus(status), message: e.message, requestId };
}
