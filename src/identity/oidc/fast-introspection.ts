import { Readable } from 'node:stream';
import { parse as parseForm } from 'node:querystring';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessToken, ClientCredentials, RefreshToken } from 'oidc-provider';
import type { App } from '../../kit/app.ts';
import type { ClientStore } from './clients.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { Database } from '../../kit/db.ts';
import { presentToProvider, type ProviderHolder } from './mount.ts';
import { mayIntrospect, ROUTES, type OidcProvider } from './provider.ts';
import { OrganizationTokens, orgClaims } from '../organizations/token-scope.ts';

/** The provider's own body limit (oidc-provider's selective_body): a longer body is left to it, so it refuses it alike. */
const PROVIDER_BODY_LIMIT = 56 * 1024;
// Read as UTF-8 here; a body in another declared charset is decoded by the provider itself.
const FORM = /^application\/x-www-form-urlencoded\s*(;\s*charset="?utf-8"?\s*)?$/i;
// An opaque token of ours is base64url; anything else (a JWT, which the provider answers as unsupported, or garbage) goes to the provider.
const OPAQUE = /^[A-Za-z0-9_-]{1,512}$/;

interface Deps {
  holder: ProviderHolder;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  db: Database;
  issuer: string;
}

type Token = AccessToken | ClientCredentials | RefreshToken;

/**
 * RFC 7662 introspection answered outside the provider's Koa stack, for speed (issue 14): the same storage read through
 * the same functions — the provider's token models (its adapter and batched lookup, so a revocation committed before the
 * request is seen), its Grant checks, the client store's secret check, `mayIntrospect` (app, principal, delegation
 * chain, organization membership) and the answer shaped as the provider plus `shapeResponses` shape it.
 *
 * Only the ordinary request is answered here: HTTP Basic of a client that authenticates with a secret, a form body with
 * `token` (opaque) and optionally `token_type_hint`, nothing else. Every other request — a missing or wrong credential,
 * another authentication method, duplicate or extra parameters, a JWT, a body the provider would refuse — is handed to
 * the provider untouched (its body replayed), so every error and edge keeps the provider's answer. Nothing is written
 * before that decision but a secret's last-use time (at most once a minute, clients.ts), so handing over repeats nothing
 * that matters.
 */
export async function registerFastIntrospection(app: App, deps: Deps): Promise<void> {
  // One OrganizationTokens per route: it only remembers, per token object, the membership it checked.
  const orgs = new OrganizationTokens(deps.db);
  const publicUrl = new URL(deps.issuer);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // The body is read here (never by Fastify) so that it can be replayed to the provider unchanged.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.route({
      method: 'POST',
      url: ROUTES.introspection,
      schema: { hide: true },
      bodyLimit: 64 * 1024,
      handler: async (request, reply) => {
        let body: Buffer | undefined;
        try {
          body = await readBody(request);
        } catch {
          // The caller went away while sending: nothing to answer.
          reply.hijack();
          request.raw.destroy();
          return;
        }
        const answer = body === undefined ? undefined : await answerFast(deps, orgs, request, body).catch(() => undefined);
        reply.hijack();
        reply.raw.setHeader('x-request-id', request.id);
        if (answer) {
          const json = JSON.stringify(answer);
          reply.raw.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(json) });
          reply.raw.end(json);
          return;
        }
        handOver(request, reply, body, publicUrl, deps.holder);
      },
    });
  });
}

/** The whole body when it is a small form the fast path may read; undefined (nothing read) otherwise. */
async function readBody(request: FastifyRequest): Promise<Buffer | undefined> {
  const length = Number(request.headers['content-length']);
  if (!FORM.test(request.headers['content-type'] ?? '') || !Number.isInteger(length) || length <= 0 || length > PROVIDER_BODY_LIMIT) return undefined;
  // Events rather than an async iterator: the iterator's promise per chunk showed as ~4% of the route's CPU.
  const raw = request.raw;
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
function handOver(request: FastifyRequest, reply: FastifyReply, body: Buffer | undefined, publicUrl: URL, holder: ProviderHolder): void {
  const raw = request.raw;
  if (body !== undefined) {
    // The provider reads `req.readable` and `req.iterator()` (oidc-provider's selective_body): both answer from the copy.
    const replay = Readable.from([body]);
    Object.defineProperty(raw, 'readable', { value: true, configurable: true });
    Object.defineProperty(raw, 'iterator', { value: (options?: { destroyOnReturn?: boolean }) => replay.iterator(options), configurable: true });
  }
  presentToProvider(request, publicUrl);
  handlerOf(holder.current)(raw, reply.raw);
}

const handlers = new WeakMap<OidcProvider, ReturnType<OidcProvider['callback']>>();
function handlerOf(provider: OidcProvider): ReturnType<OidcProvider['callback']> {
  let h = handlers.get(provider);
  if (!h) {
    h = provider.callback();
    handlers.set(provider, h);
  }
  return h;
}

/** The introspection answer, or undefined when the provider must answer this request itself. */
async function answerFast(deps: Deps, orgs: OrganizationTokens, request: FastifyRequest, rawBody: Buffer): Promise<Record<string, unknown> | undefined> {
  const headers = request.headers;
  if (headers.dpop !== undefined || headers['oauth-client-attestation'] !== undefined || headers['oauth-client-attestation-pop'] !== undefined) return undefined;
  const params = parseForm(rawBody.toString('utf8'));
  for (const key of Object.keys(params)) if (key !== 'token' && key !== 'token_type_hint') return undefined;
  const value = params.token;
  const hint = params.token_type_hint;
  if (typeof value !== 'string' || !OPAQUE.test(value) || (hint !== undefined && typeof hint !== 'string')) return undefined;
  const credentials = basicCredentials(headers.authorization);
  if (!credentials) return undefined;
  const provider = deps.holder.current;
  // The caller from the client store, which is where the provider's Client.find gets it too (clients.ts's clientMetadata):
  // an active confidential app authenticates with client_secret_basic, its secrets never expire there (each secret's
  // own expiry is checked by verifySecret) and no app has pairwise subjects. Client.find itself rebuilds and hashes the
  // metadata on every call (~5% of this route's CPU). An app not in the store (identity's own static account client),
  // a deactivated or public one goes to the provider.
  const caller = await deps.clients.app(credentials.id);
  if (!caller?.active || caller.public) return undefined;
  if (!(await deps.clients.verifySecret(caller.clientId, credentials.secret, request.ip))) return undefined;

  const inactive = { active: false };
  const token = await findToken(provider, value, hint);
  if (!token?.isValid) return inactive;
  // Fields some kinds lack in the type declarations, read as the provider's action reads them.
  const loose = token as Token & { grantId?: string; extra?: Record<string, unknown>; aud?: string | string[]; sid?: string; rar?: unknown; 'x5t#S256'?: string };
  if (loose.grantId) {
    const grant = await provider.Grant.find(loose.grantId, { ignoreExpiration: true });
    if (!grant || grant.isExpired || grant.clientId !== token.clientId || grant.accountId !== ('accountId' in token ? token.accountId : undefined)) return inactive;
  }
  if (!(await mayIntrospect(deps, caller.clientId, token, orgs))) return inactive;
  const accountId = 'accountId' in token ? token.accountId : undefined;
  if (loose.rar !== undefined) return undefined;

  // The provider's answer (oidc-provider's introspection action) ...
  const body: Record<string, unknown> = { active: true };
  if (accountId) body.sub = accountId;
  Object.assign(body, loose.extra, {
    active: true,
    client_id: token.clientId, exp: token.exp, iat: token.iat, sid: loose.sid, iss: provider.issuer,
    jti: token.jti !== value ? token.jti : undefined, aud: loose.aud, scope: token.scope || undefined,
  });
  const x5t = loose['x5t#S256'];
  if (token.isSenderConstrained()) body.cnf = { ...(x5t ? { 'x5t#S256': x5t } : {}), ...(token.jkt ? { jkt: token.jkt } : {}) };
  // ... and what shapeResponses adds to it (provider.ts): username, sub of a client-credentials token, an array aud, token_type.
  if (accountId) {
    const account = await deps.accounts.find(accountId);
    body.username = account?.identifier ?? accountId;
  } else {
    const app = await deps.clients.app(token.clientId!);
    body.username = token.clientId;
    if (app) body.sub = app.principalId;
  }
  const aud = body.aud;
  body.aud = Array.isArray(aud) ? aud : typeof aud === 'string' ? [aud] : [token.clientId];
  body.token_type = token.kind === 'RefreshToken' ? 'refresh_token' : token.jkt ? 'DPoP' : 'Bearer';
  const member = orgs.checkedMembership(token);
  if (member) Object.assign(body, orgClaims(member));
  // JSON.stringify drops the undefined fields as Koa's JSON body does.
  return body;
}

/** client_id and secret from `Authorization: Basic`, only when the provider would read them the same way without decoding. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
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

/** oidc-provider's findToken (helpers/token_find.js), which its package does not export: the kinds in the hint's order. */
async function findToken(provider: OidcProvider, value: string, hint: string | undefined): Promise<Token | undefined> {
  const accessToken = () => provider.AccessToken.find(value) as Promise<AccessToken | undefined>;
  const clientCredentials = () => provider.ClientCredentials.find(value) as Promise<ClientCredentials | undefined>;
  const refreshToken = () => provider.RefreshToken.find(value) as Promise<RefreshToken | undefined>;
  const access = () => Promise.all([accessToken(), clientCredentials()]).then(([a, c]) => a ?? c);
  if (hint === 'refresh_token' || hint === 'urn:ietf:params:oauth:token-type:refresh_token') return (await refreshToken()) ?? (await access());
  if (hint === 'access_token' || hint === 'urn:ietf:params:oauth:token-type:access_token') return (await access()) ?? (await refreshToken());
  const [a, c, r] = await Promise.all([accessToken(), clientCredentials(), refreshToken()]);
  return a ?? c ?? r;
}
