import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../kit/app.ts';
import { PUBLIC } from '../../kit/access.ts';
import { addFrontDoor } from '../../kit/front-door.ts';
import { handlerOf, presentToProvider, type ProviderHolder } from './mount.ts';
import type { ClientStore } from './clients.ts';
import type { AppRecord } from '../apps/record.ts';

/**
 * The plumbing of identity's fast routes (issue 14): a provider endpoint whose ordinary request is answered by a Fastify
 * route of its own, outside the provider's Koa stack, while every other request is handed to the provider untouched.
 * The route is static, so it wins over the provider's `/oauth/*` mount.
 */

/** The provider's own body limit (oidc-provider's selective_body): a longer body is left to it, so it refuses it alike. */
const PROVIDER_BODY_LIMIT = 56 * 1024;
// Read as UTF-8 here; a body in another declared charset is decoded by the provider itself.
const FORM = /^application\/x-www-form-urlencoded\s*(;\s*charset="?utf-8"?\s*)?$/i;

/**
 * What the provider's CORS middleware adds to every answer of its token and introspection endpoints called without an
 * Origin (oidc-provider's shared/cors.js; WWW-Authenticate is the only header it exposes with this configuration: no
 * DPoP nonces, no client attestation).
 */
export const PROVIDER_POST_HEADERS: Record<string, string> = {
  vary: 'Origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'WWW-Authenticate',
};

/**
 * Where the request being answered by a fast route came from. The provider's adapter reads a request's address and
 * user agent from the provider's own Koa context; a token a fast route has the provider's model save finds them here.
 */
export const fastRouteOrigin = new AsyncLocalStorage<{ ip: string | undefined; userAgent: string | undefined }>();

/**
 * An error a fast route answers itself, as the provider's error handler would (its JSON form): only for a request the
 * route has already written for, which cannot be handed to the provider any more (fast-exchange.ts).
 */
export class FastRefusal {
  readonly status: number;
  readonly body: { error: string; error_description: string };
  /** Beside the route's own headers (Retry-After). */
  readonly headers: Record<string, string>;
  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = { error, error_description: description };
    this.headers = headers;
  }
}

/** What a fast route reads of a request beside its body: the same whether Fastify routed it or the front door took it. */
export interface FastRequest {
  headers: IncomingHttpHeaders;
  /** The caller's address (no proxy is trusted: the socket's peer, as Fastify's request.ip here). */
  ip: string | undefined;
  /** The request's id (x-request-id), and the service's logger: for a failure a route answers itself (FastRefusal). */
  id: string;
  log: FastifyBaseLogger;
}

export interface FastRoute {
  url: string;
  holder: ProviderHolder;
  issuer: string;
  /** Headers of every fast answer beside content-type, cache-control and content-length, as the provider sends them. */
  headers: Record<string, string>;
  /**
   * The JSON answer (or a refusal of its own), or undefined when the provider must answer this request itself. May throw:
   * the provider answers then.
   */
  answer(request: FastRequest, body: Buffer): Promise<Record<string, unknown> | FastRefusal | undefined>;
}

// A body the front door read before declining the request, for the Fastify route to hand to the provider.
const readAlready = new WeakMap<IncomingMessage, Buffer>();

export async function registerFastRoute(app: App, route: FastRoute): Promise<void> {
  const publicUrl = new URL(route.issuer);
  const headers = {
    ...route.headers,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  };
  const serve = (req: IncomingMessage, res: ServerResponse, requestId: string) =>
    serveFast(route, headers, app.log, req, res, requestId);
  // The ordinary request is taken before Fastify routes it (its hooks cost as much as the rest of the answer).
  addFrontDoor(app, route.url, serve);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // The body is read here (never by Fastify) so that it can be replayed to the provider unchanged.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.route({
      method: 'POST',
      url: route.url,
      // Public at the HTTP layer: the client authenticates as OAuth has it (route.answer, else the provider).
      config: { access: PUBLIC },
      schema: { hide: true },
      bodyLimit: 64 * 1024,
      handler: async (request, reply) => {
        reply.hijack();
        const raw = request.raw;
        // Declined by the front door (body read there), or answered here as the door would (injected, closing, …).
        if (!readAlready.has(raw) && (await serve(raw, reply.raw, request.id))) return;
        reply.raw.setHeader('x-request-id', request.id);
        handOver(request, reply, readAlready.get(raw), publicUrl, route.holder);
      },
    });
  });
}

/** The fast answer written (true), or false having written nothing: the provider's to answer then. */
async function serveFast(
  route: FastRoute,
  headers: Record<string, string>,
  log: FastifyBaseLogger,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
): Promise<boolean> {
  // A browser's request (Origin) is the provider's: it decides CORS per client.
  if (req.headers.origin !== undefined) return false;
  let body: Buffer | undefined;
  try {
    body = await readBody(req);
  } catch {
    // The caller went away while sending: nothing to answer.
    req.destroy();
    return true;
  }
  if (body === undefined) return false;
  const answer = await route
    .answer({ headers: req.headers, ip: req.socket.remoteAddress, id: requestId, log }, body)
    .catch(() => undefined);
  if (!answer) {
    readAlready.set(req, body);
    return false;
  }
  const refused = answer instanceof FastRefusal;
  const json = JSON.stringify(refused ? answer.body : answer);
  res.writeHead(refused ? answer.status : 200, {
    ...headers,
    ...(refused ? answer.headers : {}),
    'x-request-id': requestId,
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
  return true;
}

/** The whole body when it is a small form a fast route may read; undefined (nothing read) otherwise. */
async function readBody(raw: IncomingMessage): Promise<Buffer | undefined> {
  const length = Number(raw.headers['content-length']);
  if (
    !FORM.test(raw.headers['content-type'] ?? '') ||
    !Number.isInteger(length) ||
    length <= 0 ||
    length > PROVIDER_BODY_LIMIT
  )
    return undefined;
  // Events rather than an async iterator: the iterator's promise per chunk showed as ~4% of the route's CPU.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onError = (err: unknown) => {
      cleanup();
      reject(err instanceof Error ? err : new Error('request aborted'));
    };
    const onClose = () => {
      if (!raw.complete) onError(new Error('request aborted'));
    };
    const cleanup = () => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onError);
      raw.off('close', onClose);
    };
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('error', onError);
    raw.on('close', onClose);
  });
}

/** Gives the request to the provider as mountProvider does, the body already read replayed as if unread. */
function handOver(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Buffer | undefined,
  publicUrl: URL,
  holder: ProviderHolder,
): void {
  const raw = request.raw;
  if (body !== undefined) {
    // The provider reads `req.readable` and `req.iterator()` (oidc-provider's selective_body): both answer from the copy.
    const replay = Readable.from([body]);
    Object.defineProperty(raw, 'readable', { value: true, configurable: true });
    Object.defineProperty(raw, 'iterator', {
      value: (options?: { destroyOnReturn?: boolean }) => replay.iterator(options),
      configurable: true,
    });
  }
  presentToProvider(request, publicUrl);
  handlerOf(holder.current)(raw, reply.raw);
}

/** client_id and secret from `Authorization: Basic`, only when the provider would read them the same way without decoding. */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i <= 0 || i === decoded.length - 1) return undefined;
  const id = decoded.slice(0, i);
  const secret = decoded.slice(i + 1);
  // The provider form-decodes both (RFC 6749 2.3.1); values with % or + are left to it.
  if (/[%+]/.test(decoded)) return undefined;
  return { id, secret };
}

/** Headers a fast route leaves to the provider: DPoP proofs and client attestation. */
export function needsProvider(headers: IncomingHttpHeaders): boolean {
  return (
    headers.dpop !== undefined ||
    headers['oauth-client-attestation'] !== undefined ||
    headers['oauth-client-attestation-pop'] !== undefined
  );
}

// RFC 6749 3.3: scope tokens of NQCHAR separated by single spaces. Anything else (empty, doubled spaces) is the provider's to judge.
const SCOPE_LIST = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/** The scopes of a `scope` parameter a fast route takes as it stands: undefined when the provider must judge it (malformed, repeated). */
export function requestedScopes(scope: string | string[] | undefined): string[] | undefined {
  if (scope !== undefined && (typeof scope !== 'string' || !SCOPE_LIST.test(scope))) return undefined;
  const requested = scope === undefined ? [] : scope.split(' ');
  return new Set(requested).size === requested.length ? requested : undefined;
}

/**
 * The app calling, when a fast route may answer it: authenticated by HTTP Basic with a live secret, active, confidential,
 * allowed client credentials (and so the credential grants, clients.ts) and not bound to DPoP.
 */
export async function fastCaller(clients: ClientStore, request: FastRequest): Promise<AppRecord | undefined> {
  const credentials = basicCredentials(request.headers.authorization);
  if (!credentials) return undefined;
  const caller = await clients.app(credentials.id);
  if (
    !caller?.active ||
    caller.public ||
    caller.dpopBoundAccessTokens ||
    !caller.allowedGrants.includes('client_credentials')
  )
    return undefined;
  return (await clients.verifySecret(caller.clientId, credentials.secret, request.ip)) ? caller : undefined;
}
