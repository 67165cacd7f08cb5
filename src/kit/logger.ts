import type { FastifyRequest, FastifyServerOptions } from 'fastify';

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

export function loggerOptions(service: string, level: LogLevel): FastifyServerOptions['logger'] {
  return {
    level,
    base: { service },
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
