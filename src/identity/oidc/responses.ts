import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import { orgClaims, type OrganizationTokens } from '../organizations/token-scope.ts';
import { LOGIN_COOKIE, clearedLoginCookie } from '../sessions/cookie.ts';
import { endLoginSession } from '../sessions/store.ts';
import { readCookie } from '../web/cookies.ts';
import type { ClientStore } from './clients.ts';
import { DEVICE_CODE } from '../apps/record.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import {
  CLIENT_AUTH_METHODS,
  CONTRACT_GRANTS,
  INTROSPECTION_AUTH_METHODS,
  KEY_ALGORITHMS,
  ROUTES,
} from './protocol.ts';

/**
 * What the contract adds to the provider's introspection answer of an active token: `username`, the `sub` of a
 * client-credentials token (its app's principal), an array `aud`, `token_type`, and an organization token's role and
 * permissions as they are now (the membership mayIntrospect checked). Used by shapeResponses and the fast route alike.
 */
export async function addIntrospectionFields(
  deps: { clients: ClientStore; accounts: PrincipalDirectory },
  orgs: OrganizationTokens,
  token: { clientId?: string | undefined; kind: string; jkt?: string | undefined; accountId?: string | undefined },
  body: Record<string, unknown>,
): Promise<void> {
  const accountId = token.accountId;
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
}

export interface ResponseDeps {
  db: Database;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  /** Every grant type the token endpoint takes: the contract's and the features'. */
  grantTypes: readonly string[];
}

/** One adjustment of the provider's answer: true when it answered the request (the later ones are skipped). */
type Adjustment = (ctx: KoaContextWithOIDC) => boolean | Promise<boolean>;

/**
 * Adjusts the provider's answers to the contract, in order (each a named step below): introspection needs HTTP Basic,
 * revocation Basic or a public app's client_id; an unknown endpoint answers OAuth's shape; introspection carries
 * `username` and an array `aud`; a JWT is no token of ours; a grant the app may not use is unauthorized_client;
 * discovery lists what the server does; signing out through the provider also ends the service's login session.
 */
export function shapeResponses(deps: ResponseDeps, orgs: OrganizationTokens) {
  const supported = new Set<string>([...CONTRACT_GRANTS, DEVICE_CODE, ...deps.grantTypes]);
  const after: Adjustment[] = [
    revocationNeedsAClient,
    oauthNotFound,
    (ctx) => introspectionFields(deps, orgs, ctx),
    jwtIsNoTokenOfOurs,
    (ctx) => unauthorizedClient(ctx, supported),
    (ctx) => discoveryValues(ctx, supported),
    (ctx) => signOutEndsLoginSession(deps.db, ctx),
  ];
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    const introspectionWithoutBasic =
      ctx.method === 'POST' && ctx.path === ROUTES.introspection && !/^Basic \S/i.test(ctx.get('authorization'));
    await next();
    if (introspectionWithoutBasic && introspectionNeedsBasic(ctx)) return;
    for (const adjust of after) if (await adjust(ctx)) return;
  };
}

/** The provider's JSON answer, when it gave one (Koa types a body as unknown). */
function answerOf(ctx: KoaContextWithOIDC): Record<string, unknown> | undefined {
  return typeof ctx.body === 'object' && ctx.body !== null && !Buffer.isBuffer(ctx.body)
    ? (ctx.body as Record<string, unknown>)
    : undefined;
}

function unauthenticated(ctx: KoaContextWithOIDC, description: string): void {
  ctx.status = 401;
  ctx.set('WWW-Authenticate', 'Basic realm="identity"');
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_client', error_description: description };
}

/**
 * The contract authenticates introspection with HTTP Basic; an app with registered keys may send a client assertion
 * instead (private_key_jwt), which the provider judges. Anything else — no authentication, which the provider would
 * answer 400 invalid_request, a secret in the body, or a public client's client_id alone (v9 has one auth method per
 * client for every endpoint, `none` for public apps) — is invalid_client, 401 with a challenge (RFC 6749 5.2), and
 * whatever the provider answered is replaced (introspection changes nothing).
 */
function introspectionNeedsBasic(ctx: KoaContextWithOIDC): boolean {
  if (ctx.oidc?.params?.client_assertion !== undefined) return false;
  unauthenticated(
    ctx,
    'client authentication is required (HTTP Basic with client_id and client_secret, or a client assertion of an app with registered keys)',
  );
  return true;
}

/**
 * Revocation also admits a public client by its client_id alone (RFC 7009 2.1), so the provider authenticates it; a request
 * that named no client at all is answered as the contract's missing client authentication.
 */
function revocationNeedsAClient(ctx: KoaContextWithOIDC): boolean {
  if (
    ctx.oidc?.route !== 'revocation' ||
    ctx.status !== 400 ||
    answerOf(ctx)?.error !== 'invalid_request' ||
    ctx.oidc.entities?.Client
  )
    return false;
  unauthenticated(
    ctx,
    'client authentication is required (HTTP Basic with client_id and client_secret; a public app sends its client_id)',
  );
  return true;
}

const POST_ONLY = new Set<string>([ROUTES.token, ROUTES.introspection, ROUTES.revocation]);

/**
 * No endpoint took the request: OAuth's error shape instead of the router's plain "Not Found", and 405 for the
 * POST-only endpoints asked with another method.
 */
function oauthNotFound(ctx: KoaContextWithOIDC): boolean {
  if (ctx.status !== 404 || ctx.body != null) return false;
  ctx.set('Cache-Control', 'no-store');
  if (POST_ONLY.has(ctx.path) && ctx.method !== 'POST') {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    ctx.body = { error: 'invalid_request', error_description: `${ctx.path} only accepts POST` };
  } else {
    ctx.status = 404;
    ctx.body = { error: 'invalid_request', error_description: `no endpoint ${ctx.method} ${ctx.path}` };
  }
  return true;
}

async function introspectionFields(
  deps: ResponseDeps,
  orgs: OrganizationTokens,
  ctx: KoaContextWithOIDC,
): Promise<boolean> {
  const answer = answerOf(ctx);
  if (ctx.oidc?.route !== 'introspection' || answer?.active !== true) return false;
  const entities = ctx.oidc.entities;
  const token = entities.AccessToken ?? entities.ClientCredentials ?? entities.RefreshToken;
  if (token?.clientId) await addIntrospectionFields(deps, orgs, token, answer);
  return true;
}

/**
 * The service never issues structured (JWT) access tokens, so a JWT is simply not a live token of ours: inactive at
 * introspection, and revocation answers 200 as it always does.
 */
function jwtIsNoTokenOfOurs(ctx: KoaContextWithOIDC): boolean {
  const route = ctx.oidc?.route;
  if ((route !== 'introspection' && route !== 'revocation') || answerOf(ctx)?.error !== 'unsupported_token_type')
    return false;
  ctx.status = 200;
  ctx.body = route === 'introspection' ? { active: false } : '';
  return true;
}

/** RFC 6749 5.2 and the contract name a grant the app may not use unauthorized_client; the provider says invalid_request. */
function unauthorizedClient(ctx: KoaContextWithOIDC, supported: ReadonlySet<string>): boolean {
  const answer = answerOf(ctx);
  const route = ctx.oidc?.route;
  if (
    (route !== 'token' && route !== 'device_authorization') ||
    ctx.status !== 400 ||
    answer?.error !== 'invalid_request'
  )
    return false;
  // Read from the request, not the error's text; a device authorization request asks for the device grant.
  const client = ctx.oidc.entities?.Client;
  const grantType = route === 'device_authorization' ? DEVICE_CODE : ctx.oidc.params?.grant_type;
  if (
    client === undefined ||
    typeof grantType !== 'string' ||
    !supported.has(grantType) ||
    client.grantTypeAllowed(grantType)
  )
    return false;
  ctx.body = { ...answer, error: 'unauthorized_client' };
  return true;
}

/** What the server does, so a client reading discovery finds it (RFC 8414 section 2). */
function discoveryValues(ctx: KoaContextWithOIDC, supported: ReadonlySet<string>): boolean {
  const answer = answerOf(ctx);
  if (ctx.oidc?.route !== 'discovery' || !answer) return false;
  answer.grant_types_supported = [...supported];
  answer.introspection_endpoint_auth_methods_supported = [...INTROSPECTION_AUTH_METHODS];
  answer.revocation_endpoint_auth_methods_supported = [...CLIENT_AUTH_METHODS];
  answer.introspection_endpoint_auth_signing_alg_values_supported = [...KEY_ALGORITHMS];
  answer.revocation_endpoint_auth_signing_alg_values_supported = [...KEY_ALGORITHMS];
  return true;
}

/** Signing out through the provider (its logout confirmation) also ends the service's login session. */
async function signOutEndsLoginSession(db: Database, ctx: KoaContextWithOIDC): Promise<boolean> {
  if (ctx.oidc?.route !== 'end_session_confirm' || !ctx.oidc.params?.logout) return false;
  const token = readCookie(ctx.get('cookie'), LOGIN_COOKIE);
  if (token) {
    await endLoginSession(db, token);
    ctx.append('Set-Cookie', clearedLoginCookie());
  }
  return true;
}
