import { parse as parseForm } from 'node:querystring';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../kit/app.ts';
import type { ClientStore } from './clients.ts';
import type { ProviderHolder } from './mount.ts';
import { ROUTES } from './provider.ts';
import { basicCredentials, fastRouteOrigin, needsProvider, PROVIDER_POST_HEADERS, registerFastRoute } from './fast-route.ts';

interface Deps {
  holder: ProviderHolder;
  clients: ClientStore;
  /** Every scope the service knows (built-in and IDENTITY_EXTRA_SCOPES). */
  scopes: ReadonlySet<string>;
  issuer: string;
  /** Counts the issued token as the provider's grant.success does (identity_token_requests_total). */
  onIssued(): void;
}

// RFC 6749 3.3: scope tokens of NQCHAR separated by single spaces. Anything else (empty, doubled spaces) is the provider's to judge.
const SCOPE_LIST = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/**
 * The client-credentials grant answered outside the provider's Koa stack, for speed (issue 14). The provider stays the
 * issuer: the token is the provider's own ClientCredentials model, made as its grant handler makes it (the client from
 * Client.find, the scope, its lifetime from the ttl setting, its extra claims from extraTokenClaims) and saved through
 * the same adapter, so it is stored, sealed and batched exactly as a token the provider's endpoint issues, and the
 * answer is the provider's token response.
 *
 * Only the ordinary request is answered here: HTTP Basic of an active confidential app allowed client_credentials and
 * not bound to DPoP, a form body of `grant_type=client_credentials` and optionally `scope` whose every scope is known and
 * allowed to the app, nothing else. Every other request — a wrong secret, a refused scope, an organization, a resource,
 * a DPoP proof, extra or duplicate parameters, a browser's Origin, any error on the way (the database being down) — is
 * handed to the provider untouched, so every error answer stays the provider's. Nothing is written before that decision
 * but a secret's last-use time (at most once a minute, clients.ts).
 */
export async function registerFastClientCredentials(app: App, deps: Deps): Promise<void> {
  await registerFastRoute(app, {
    url: ROUTES.token,
    holder: deps.holder,
    issuer: deps.issuer,
    headers: PROVIDER_POST_HEADERS,
    answer: (request, body) => issue(deps, request, body),
  });
}

async function issue(deps: Deps, request: FastifyRequest, rawBody: Buffer): Promise<Record<string, unknown> | undefined> {
  if (needsProvider(request.headers)) return undefined;
  const params = parseForm(rawBody.toString('utf8'));
  for (const key of Object.keys(params)) if (key !== 'grant_type' && key !== 'scope') return undefined;
  if (params.grant_type !== 'client_credentials') return undefined;
  const scope = params.scope;
  if (scope !== undefined && (typeof scope !== 'string' || !SCOPE_LIST.test(scope))) return undefined;
  const requested = scope === undefined ? [] : scope.split(' ');
  if (new Set(requested).size !== requested.length) return undefined;

  const credentials = basicCredentials(request.headers.authorization);
  if (!credentials) return undefined;
  const caller = await deps.clients.app(credentials.id);
  if (!caller?.active || caller.public || caller.dpopBoundAccessTokens || !caller.allowedGrants.includes('client_credentials')) return undefined;
  // What the provider's validateClientScope and our extraTokenClaims would refuse is left to them, so they refuse it.
  if (!requested.every((s) => deps.scopes.has(s) && caller.allowedScopes.includes(s))) return undefined;
  if (!(await deps.clients.verifySecret(caller.clientId, credentials.secret, request.ip))) return undefined;

  const provider = deps.holder.current;
  const client = await provider.Client.find(caller.clientId);
  if (!client) return undefined;
  const token = new provider.ClientCredentials({ client, scope: requested.join(' ') || undefined });
  const userAgent = request.headers['user-agent']?.slice(0, 512) || undefined;
  const value = await fastRouteOrigin.run({ ip: request.ip, userAgent }, () => token.save());
  deps.onIssued();
  // oidc-provider's buildTokenResponse, in its order, undefined members left out by JSON.stringify.
  return { access_token: value, expires_in: token.expiration, scope: token.scope || undefined, token_type: token.tokenType };
}
