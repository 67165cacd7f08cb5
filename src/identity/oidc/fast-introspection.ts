import { parse as parseForm } from 'node:querystring';
import type { AccessToken, ClientCredentials, RefreshToken } from 'oidc-provider';
import type { App } from '../../kit/app.ts';
import type { ClientStore } from './clients.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ProviderHolder } from './mount.ts';
import type { Database } from '../../kit/db.ts';
import type { OidcProvider } from './provider.ts';
import { mayIntrospect, type TokenOwners } from './entitlement.ts';
import { addIntrospectionFields } from './responses.ts';
import { ROUTES } from './protocol.ts';
import {
  basicCredentials,
  needsProvider,
  PROVIDER_POST_HEADERS,
  registerFastRoute,
  type FastRequest,
} from './fast-route.ts';
import { OrganizationTokens } from '../organizations/token-scope.ts';

// An opaque token of ours is base64url; anything else (a JWT, which the provider answers as unsupported, or garbage) goes to the provider.
const OPAQUE = /^[A-Za-z0-9_-]{1,512}$/;

interface Deps {
  holder: ProviderHolder;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  db: Database;
  issuer: string;
  chainLive(token: TokenOwners): Promise<boolean>;
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
  await registerFastRoute(app, {
    url: ROUTES.introspection,
    holder: deps.holder,
    issuer: deps.issuer,
    headers: PROVIDER_POST_HEADERS,
    answer: (request, body) => answerFast(deps, orgs, request, body),
  });
}

/** The introspection answer, or undefined when the provider must answer this request itself. */
async function answerFast(
  deps: Deps,
  orgs: OrganizationTokens,
  request: FastRequest,
  rawBody: Buffer,
): Promise<Record<string, unknown> | undefined> {
  const headers = request.headers;
  if (needsProvider(headers)) return undefined;
  const params = parseForm(rawBody.toString('utf8'));
  for (const key of Object.keys(params)) if (key !== 'token' && key !== 'token_type_hint') return undefined;
  const value = params.token;
  const hint = params.token_type_hint;
  if (typeof value !== 'string' || !OPAQUE.test(value) || (hint !== undefined && typeof hint !== 'string'))
    return undefined;
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
  const loose = token as Token & {
    grantId?: string;
    extra?: Record<string, unknown>;
    aud?: string | string[];
    sid?: string;
    rar?: unknown;
    'x5t#S256'?: string;
  };
  if (loose.grantId) {
    const grant = await provider.Grant.find(loose.grantId, { ignoreExpiration: true });
    if (
      !grant ||
      grant.isExpired ||
      grant.clientId !== token.clientId ||
      grant.accountId !== ('accountId' in token ? token.accountId : undefined)
    )
      return inactive;
  }
  if (!(await mayIntrospect(deps, caller.clientId, token, orgs))) return inactive;
  const accountId = 'accountId' in token ? token.accountId : undefined;
  if (loose.rar !== undefined) return undefined;

  // The provider's answer (oidc-provider's introspection action) ...
  const body: Record<string, unknown> = { active: true };
  if (accountId) body.sub = accountId;
  Object.assign(body, loose.extra, {
    active: true,
    client_id: token.clientId,
    exp: token.exp,
    iat: token.iat,
    sid: loose.sid,
    iss: provider.issuer,
    jti: token.jti !== value ? token.jti : undefined,
    aud: loose.aud,
    scope: token.scope || undefined,
  });
  const x5t = loose['x5t#S256'];
  if (token.isSenderConstrained())
    body.cnf = { ...(x5t ? { 'x5t#S256': x5t } : {}), ...(token.jkt ? { jkt: token.jkt } : {}) };
  // ... and what shapeResponses adds to it (responses.ts).
  await addIntrospectionFields(deps, orgs, token, body);
  // JSON.stringify drops the undefined fields as Koa's JSON body does.
  return body;
}

/** oidc-provider's findToken (helpers/token_find.js), which its package does not export: the kinds in the hint's order. */
async function findToken(provider: OidcProvider, value: string, hint: string | undefined): Promise<Token | undefined> {
  const accessToken = () => provider.AccessToken.find(value) as Promise<AccessToken | undefined>;
  const clientCredentials = () => provider.ClientCredentials.find(value) as Promise<ClientCredentials | undefined>;
  const refreshToken = () => provider.RefreshToken.find(value) as Promise<RefreshToken | undefined>;
  const access = () => Promise.all([accessToken(), clientCredentials()]).then(([a, c]) => a ?? c);
  if (hint === 'refresh_token' || hint === 'urn:ietf:params:oauth:token-type:refresh_token')
    return (await refreshToken()) ?? (await access());
  if (hint === 'access_token' || hint === 'urn:ietf:params:oauth:token-type:access_token')
    return (await access()) ?? (await refreshToken());
  const [a, c, r] = await Promise.all([accessToken(), clientCredentials(), refreshToken()]);
  return a ?? c ?? r;
}
