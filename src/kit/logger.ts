import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { prettyLogStream } from './pretty-log.ts';

/** Query parameters whose values are credentials or one-time codes, never to be written to a log. */
const SENSITIVE_QUERY = new Set([
  'code',
  'state',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'id_token_hint',
  'client_secret',
  'password',
  'api_key',
  'key',
  'code_verifier',
  'ticket',
  'login_hint',
  'email',
  // identity's sign-in page carries where to go next, which may be an invitation link with its token.
  'return_to',
]);

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of [...params.keys()]) if (SENSITIVE_QUERY.has(name.toLowerCase())) params.set(name, '[redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** `auto`: one readable line per entry when stdout is a terminal, JSON lines otherwise (a file, a pipe, a collector). */
export type LogFormat = 'auto' | 'json' | 'pretty';

// Every service of a process writes to the one stdout, so how it is written is the process's choice, made once by
// `platform start` (src/platform/start.ts) before the apps are built; apps built elsewhere (tests) write JSON.
let pretty = false;

export function setLogFormat(format: LogFormat, stdout: { isTTY?: boolean } = process.stdout): void {
  pretty = format === 'pretty' || (format === 'auto' && stdout.isTTY === true);
}

/** A request slower than this is logged at info whatever its status, so slowness shows without debug logging. */
export const SLOW_REQUEST_MS = 1000;

/**
 * The level of a request's one log line: info for what an operator acts on (a 5xx, a slow answer), debug for the
 * rest, 4xx included (the caller got a documented error and acts on it); so `/ready` polls and a walk's requests do
 * not bury the start's lines. `LOG_LEVEL=debug` shows every request.
 */
export function requestLogLevel(statusCode: number, responseTimeMs: number): 'info' | 'debug' {
  return statusCode >= 500 || responseTimeMs > SLOW_REQUEST_MS ? 'info' : 'debug';
}

/** Fastify's request lines at the levels of requestLogLevel: one line when the answer is sent, "incoming" at trace. */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.trace({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
      return;
    }
    const level = requestLogLevel(reply.statusCode, reply.elapsedTime);
    reply.log[level]({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug(`Route ${request.method}:${redactUrl(request.url)} not found`);
  }
}

export function loggerOptions(service: string, level: LogLevel): FastifyServerOptions['logger'] {
  return {
    level,
    base: { service },
    ...(pretty ? { stream: prettyLogStream(process.stdout) } : {}),
    // Headers are not logged at all: they carry cookies, API keys and Authorization.
    serializers: {
      req(req: FastifyRequest) {
        return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip };
      },
    },
    redact: {
      paths: ['req.headers', 'headers.authorization', 'headers.cookie', '*.password', '*.client_secret', '*.secret'],
      censor: '[redacted]',
    },
  };
}
