import { createHmac } from 'node:crypto';
import Provider, { errors, interactionPolicy, type Client, type Grant, type KoaContextWithOIDC } from 'oidc-provider';
import { isDatabaseUnavailable } from '../../kit/db.ts';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../kit/app.ts';
import { DPOP_ALGS } from '../../kit/auth/dpop.ts';
import type { JWK } from 'jose';
import type { Database } from '../../kit/db.ts';
import type { FastifyBaseLogger } from 'fastify';
import { adapterFactory } from './adapter.ts';
import { CREDENTIAL_GRANTS, registerCredentialGrants } from '../credentials/grants.ts';
import type { CredentialLookup } from '../credentials/lookup.ts';
import { EXTRA_CLIENT_PROPERTIES, type ClientStore } from './clients.ts';
import { reuseClientsPerAppVersion } from './client-reuse.ts';
import { acceptKeysBesideSecrets, clientAssertionCheck } from './client-assertions.ts';
import { KEY_ALGORITHMS } from '../credentials/store.ts';
import { fastRouteOrigin } from './fast-route.ts';
import { claimsOf } from './claims.ts';
import { delegationClaims } from '../delegation/exchange.ts';
import { delegationLive } from '../delegation/entitlement.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { LOGIN_COOKIE, clearedLoginCookie } from '../sessions/cookie.ts';
import { readCookie } from '../web/cookies.ts';
import { endLoginSession, findLoginSession } from '../sessions/store.ts';
import { accountClientMetadata } from '../apps/built-in-clients.ts';
import type { BuiltInClient } from '../apps/built-in-clients.ts';
import {
  ORGANIZATION_PARAM,
  OrganizationTokens,
  boundOrganization,
  orgClaims,
  type OrgMembership,
} from '../organizations/token-scope.ts';

export const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  introspection: '/oauth/introspect',
  revocation: '/oauth/revoke',
  jwks: '/.well-known/jwks.json',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
} as const;

export interface ProviderDeps {
  issuer: string;
  db: Database;
  secretKey: Buffer;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  scopes: readonly string[];
  loginSessionTtl: number;
  signingKeys: JWK[];
  log: FastifyBaseLogger;
  /** IDENTITY_DELEGATION_MAX_DEPTH: the most agents in one delegation chain. */
  delegationMaxDepth: number;
  /** API keys, key pairs and spent jtis: one for the service, shared with the token endpoint's fast route. */
  credentials: CredentialLookup;
  /** The pages the provider renders itself (its sign-out confirmation and its error page), in the service's layout. */
  pages: ProviderPages;
  /** Static clients besides the account pages' one: set by `platform start` for services it runs beside identity. */
  builtInClients?: BuiltInClient[];
}

export interface ProviderPages {
  logout(ctx: KoaContextWithOIDC, form: string): Promise<void>;
  logoutSuccess(ctx: KoaContextWithOIDC): Promise<void>;
  error(
    ctx: KoaContextWithOIDC,
    out: { error?: string | undefined; error_description?: string | undefined },
    err?: unknown,
  ): Promise<void>;
}

/** The provider as the service holds it (swapped on key rotation, see mount.ts). */
export type OidcProvider = Provider;

function hkdfKey(secretKey: Buffer, purpose: string): string {
  return createHmac('sha256', secretKey).update(`identity.${purpose}`).digest('base64url');
}

/** A scope request may only hold scopes the server knows: the provider itself would silently drop the others. */
function knownScopesCheck(known: ReadonlySet<string>) {
  return new interactionPolicy.Check(
    'known_scopes',
    'only known scopes may be requested',
    'invalid_scope',
    (ctx: KoaContextWithOIDC) => {
      // The provider has already dropped unknown scopes from its params, so the request itself is read.
      const raw =
        ctx.oidc.route === 'authorization'
          ? ctx.method === 'POST'
            ? ctx.oidc.body?.scope
            : ctx.query?.scope
          : ctx.oidc.params?.scope;
      const requested: string[] = String(raw ?? '')
        .split(' ')
        .filter(Boolean);
      // The contract makes scope required: without one the provider would go on to sign-in and issue a code for nothing.
      if (!requested.length) throw new errors.InvalidRequest("missing required parameter 'scope'");
      const unknown = requested.filter((s) => !known.has(s));
      if (unknown.length) throw new errors.InvalidScope('requested scope is not known', unknown.join(' '));
      return interactionPolicy.Check.NO_NEED_TO_PROMPT;
    },
  );
}

/** The service's own login session (__Host-svc_login) must be live and for the provider session's principal. */
function loginSessionCheck(db: Database) {
  return new interactionPolicy.Check(
    'login_session',
    'a live login session is required',
    'login_required',
    async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId) return interactionPolicy.Check.REQUEST_PROMPT;
      if (ctx.oidc.result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const session = await findLoginSession(db, readCookie(ctx.get('cookie'), LOGIN_COOKIE));
      return session?.principalId === accountId
        ? interactionPolicy.Check.NO_NEED_TO_PROMPT
        : interactionPolicy.Check.REQUEST_PROMPT;
    },
  );
}

function interactionPolicyFor(deps: ProviderDeps, known: ReadonlySet<string>, orgs: OrganizationTokens) {
  const policy = interactionPolicy.base();
  const login = policy.get('login')!;
  login.checks.unshift(knownScopesCheck(known));
  login.checks.push(loginSessionCheck(deps.db));
  policy.get('consent')!.checks.unshift(orgs.authorizationCheck());
  return policy;
}

/** Whom a token was issued to: its app, and the principal it speaks for (none for client credentials). */
interface TokenOwners {
  clientId?: string | undefined;
  accountId?: string | undefined;
  /** The token's value and its extra claims: a delegated token's chain is there (src/identity/delegation). */
  jti?: string | undefined;
  extra?: Record<string, unknown> | undefined;
}

/**
 * Whether a token's app, and its principal if it has one, are still active: a deactivated one's tokens stop counting at once.
 * A delegated token also needs every agent of its chain active and no token above it revoked; an organization-scoped
 * token needs its principal's membership (and the organization) to be active still.
 */
export async function stillEntitled(
  deps: Pick<ProviderDeps, 'clients' | 'accounts' | 'db'>,
  token: TokenOwners,
  orgs?: OrganizationTokens,
): Promise<boolean> {
  if (!token.clientId) return false;
  const app = await deps.clients.app(token.clientId);
  if (!app?.active) return false;
  if (token.accountId) {
    if ((await deps.accounts.find(token.accountId))?.active !== true) return false;
    if (!(await delegationLive(deps.db, deps.accounts, token))) return false;
  }
  return orgs ? orgs.stillMember(token, token.accountId ?? app.principalId) : true;
}

/** Whether `callerId` may learn the details of `token`: its own app, or a resource server, and only while the token still counts. */
export async function mayIntrospect(
  deps: Pick<ProviderDeps, 'clients' | 'accounts' | 'db'>,
  callerId: string,
  token: TokenOwners,
  orgs?: OrganizationTokens,
): Promise<boolean> {
  if (token.clientId !== callerId && (await deps.clients.app(callerId))?.resourceServer !== true) return false;
  return stillEntitled(deps, token, orgs);
}

/** Scopes a principal may receive from an app: requested, allowed for the app, and allowed for the principal. */
export function grantableScopes(
  requested: Iterable<string>,
  clientScope: string | undefined,
  principalScopes: readonly string[],
): string[] {
  const appAllowed = new Set(
    String(clientScope ?? '')
      .split(' ')
      .filter(Boolean),
  );
  const principalAllowed = new Set(principalScopes);
  return [...new Set(requested)].filter((s) => appAllowed.has(s) && (s === 'openid' || principalAllowed.has(s)));
}

/** Drops from a grant the scopes its app or its principal is no longer allowed (openid always stays). */
async function narrowToCurrentScopes(
  deps: Pick<ProviderDeps, 'clients' | 'accounts' | 'builtInClients'>,
  grant: Grant,
): Promise<void> {
  const scope = grant.openid?.scope;
  if (!scope || !grant.accountId || !grant.clientId) return;
  const [app, account] = await Promise.all([deps.clients.app(grant.clientId), deps.accounts.find(grant.accountId)]);
  // A built-in client is not in oauth_apps: its scopes are the ones it was given at start.
  const clientScope = app
    ? app.allowedScopes.join(' ')
    : deps.builtInClients?.find((c) => c.client_id === grant.clientId)?.scope;
  grant.openid!.scope = grantableScopes(scope.split(' '), clientScope, account?.allowedScopes ?? []).join(' ');
}

export function buildProvider(deps: ProviderDeps): OidcProvider {
  const known = new Set(deps.scopes);
  const orgs = new OrganizationTokens(deps.db);
  const ttlOf = (client: Client | undefined, key: string, fallback: number): number => {
    const v = client?.[key];
    return typeof v === 'number' && v > 0 ? v : fallback;
  };

  const provider = new Provider(deps.issuer, {
    adapter: adapterFactory({
      db: deps.db,
      secretKey: deps.secretKey,
      clients: deps.clients,
      origin: () => {
        const fast = fastRouteOrigin.getStore();
        if (fast) return fast;
        const ctx = Provider.ctx;
        return { ip: ctx?.ip, userAgent: ctx?.get?.('user-agent')?.slice(0, 512) || undefined };
      },
    }),
    // Static clients: identity's own account pages sign people in through the normal sign-in (apps/built-in-clients.ts), and
    // `platform start` adds one per service of the platform it runs beside identity (built-in-clients.ts).
    clients: [accountClientMetadata(deps.issuer), ...(deps.builtInClients ?? [])],
    routes: ROUTES,
    responseTypes: ['code'],
    // private_key_jwt for apps with registered keys, beside their secrets (client-assertions.ts).
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    assertJwtClientAuthClaimsAndHeader: clientAssertionCheck(deps.credentials, CLOCK_TOLERANCE_SECONDS),
    scopes: [...deps.scopes],
    claims: {
      // The organization claims appear only for an organization-scoped token (see organizations/token-scope.ts).
      openid: ['sub', 'org_id', 'org_role', 'org_permissions'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'locale', 'zoneinfo', 'updated_at'],
    },
    jwks: { keys: deps.signingKeys },
    cookies: {
      keys: [hkdfKey(deps.secretKey, 'cookies')],
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    // The contract makes redirect_uri required at the authorization endpoint (and the code grant names it); the provider
    // would otherwise fill in an app's only registered URI when it is left out.
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // Only confidential clients can authenticate here (HTTP Basic, see shapeResponses). A token's details go to its own
        // app or to an app registered as a resource server; any other caller gets {active:false} (RFC 7662 section 4), so a
        // third-party app cannot read another app's users. Only while the token's app and principal are still active (the
        // provider checks neither, and for a deactivated app it fails looking the client up when another client asks).
        allowedPolicy: async (_ctx, client, token) => mayIntrospect(deps, client.clientId, token, orgs),
      },
      revocation: {
        enabled: true,
        // Another client's token is left alone, and the answer is still 200 (the provider would answer 400).
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // RFC 9449: a token requested with a DPoP proof is bound to the proof key's thumbprint (its `jkt`, `cnf.jkt` at
      // introspection) and then needs a fresh proof by that key at every use. The provider refuses a bad signature, a wrong
      // htm/htu, an iat off by more than its window (5 minutes) and, through ReplayDetection in oidc_artifacts, a reused jti.
      // An app flagged dpop_bound_access_tokens must send a proof with every token request.
      dPoP: { enabled: true, allowReplay: false },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: deps.pages.logout,
        postLogoutSuccessSource: deps.pages.logoutSuccess,
      },
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      introspectionSigningAlgValues: ['RS256'],
      authorizationSigningAlgValues: ['RS256'],
      // The algorithms a registered key may have (credentials/store.ts).
      clientAuthSigningAlgValues: [...KEY_ALGORITHMS],
      requestObjectSigningAlgValues: ['RS256'],
      // The kit's list, which the platform's resource servers accept too.
      dPoPSigningAlgValues: [...DPOP_ALGS],
    },
    extraClientMetadata: { properties: [...EXTRA_CLIENT_PROPERTIES], validator: () => undefined },
    ttl: {
      AccessToken: (_ctx, _token, client) => ttlOf(client, 'access_token_ttl', 900),
      ClientCredentials: (_ctx, _token, client) => ttlOf(client, 'access_token_ttl', 900),
      AuthorizationCode: (_ctx, _code, client) => ttlOf(client, 'authorization_code_ttl', 600),
      // A rotated refresh token inherits what is left of its family's lifetime: rotation never extends it.
      RefreshToken: (ctx, _token, client) =>
        ctx?.oidc?.entities?.RotatedRefreshToken?.remainingTTL ?? ttlOf(client, 'refresh_token_ttl', 604_800),
      // The grant outlives every refresh token it can yield (a refresh token dies with its grant). The provider passes the
      // grant's client third, which its type declarations leave out.
      Grant: (_ctx: KoaContextWithOIDC, _grant: Grant, client?: Client) =>
        ttlOf(client, 'refresh_token_ttl', 604_800) + ttlOf(client, 'authorization_code_ttl', 600) + 3600,
      Session: () => deps.loginSessionTtl,
      Interaction: () => 3600,
      IdToken: () => 3600,
    },
    // Refresh tokens for every app allowed the refresh_token grant, with or without offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: (ctx) => ctx.oidc.entities.Client?.refresh_token_rotation !== false,
    // Tokens live by their own lifetimes; signing out of the browser does not revoke apps' tokens.
    expiresWithSession: async () => false,
    async extraTokenClaims(ctx, token) {
      // Client credentials: the provider drops unknown scopes silently (so the raw body is read here) and checks the others against the
      // app's list only when it has one. Here every requested scope must be known and allowed to the app.
      // The fast route (fast-client-credentials.ts) saves its token outside a request of the provider's: no ctx, the client's
      // scope read where the provider's Client gets it.
      if (token.kind === 'ClientCredentials') {
        const clientScope = ctx
          ? ctx.oidc.client?.scope
          : (await deps.clients.app(token.clientId!))?.allowedScopes.join(' ');
        const allowed = new Set(
          String(clientScope ?? '')
            .split(' ')
            .filter(Boolean),
        );
        for (const scope of String(ctx?.oidc.body?.scope ?? token.scope ?? '')
          .split(' ')
          .filter(Boolean)) {
          if (!known.has(scope) || !allowed.has(scope))
            throw new errors.InvalidScope('requested scope is not allowed', scope);
        }
      }
      // An organization-scoped token carries org_id (introspection shows it from `extra`); a client-credentials token speaks for the app's principal.
      const principalId =
        token.kind === 'ClientCredentials'
          ? token.clientId
            ? (await deps.clients.app(token.clientId))?.principalId
            : undefined
          : token.accountId;
      const org = await orgs.claimFor(ctx, principalId);
      // A delegated token's act, delegation_chain and parent_token_id (introspection shows `extra` at the top level).
      const delegated = delegationClaims(token);
      return org || delegated ? { ...delegated, ...org } : undefined;
    },
    async findAccount(ctx, sub, token) {
      const account = await deps.accounts.find(sub);
      if (!account || !account.active) return undefined;
      // At the token endpoint the organization is decided here, before a refresh token is rotated; elsewhere (userinfo) an
      // organization token whose membership has ended finds no account, so it is refused.
      let member: OrgMembership | undefined;
      if (ctx?.oidc?.route === 'token') member = await orgs.decide(ctx, account.id, token);
      else if (boundOrganization(token)) {
        member = await orgs.membership(boundOrganization(token)!, account.id);
        if (!member) return undefined;
      }
      return {
        accountId: account.id,
        claims: async () => ({ ...claimsOf(account), ...(member ? orgClaims(member) : {}) }),
      };
    },
    async loadExistingGrant(ctx) {
      const client = ctx.oidc.client;
      const accountId = ctx.oidc.session?.accountId;
      if (!client || !accountId) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(client.clientId);
      if (grantId) {
        const grant = await ctx.oidc.provider.Grant.find(grantId);
        // Reuse a grant only while it can still cover a full refresh-token lifetime.
        const needed = ttlOf(client, 'refresh_token_ttl', 604_800) + ttlOf(client, 'authorization_code_ttl', 600);
        if (grant && grant.accountId === accountId && (grant.exp ?? Infinity) - Date.now() / 1000 > needed)
          return grant;
        if (ctx.oidc.result?.consent?.grantId) return grant;
      }
      if (client.first_party !== true) return undefined;
      // First-party apps skip consent: the grant is what the app and the principal are both allowed.
      const account = await deps.accounts.find(accountId);
      if (!account) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
      const scopes = grantableScopes(ctx.oidc.requestParamScopes, client.scope, account.allowedScopes);
      if (scopes.length) grant.addOIDCScope(scopes.join(' '));
      await grant.save();
      return grant;
    },
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: interactionPolicyFor(deps, known, orgs),
    },
    renderError: deps.pages.error,
    extraParams: { [ORGANIZATION_PARAM]: orgs.validateParam },
  });
  orgs.install(provider);
  reuseClientsPerAppVersion(provider, deps.clients);
  acceptKeysBesideSecrets(provider);

  // Secrets are kept as SHA-256 only, several per app: the provider's own comparison against one
  // clear client_secret is replaced by a lookup among the app's live secret hashes.
  provider.Client.prototype.compareClientSecret = function compareClientSecret(
    this: { clientId: string },
    actual: string,
  ) {
    return deps.clients.verifySecret(this.clientId, actual, Provider.ctx?.ip);
  };
  // A grant holds what was allowed when it was made; every use (a reused grant at authorization, a code exchange, a
  // refresh, userinfo) reads it through Grant.find, so it is narrowed there to what the app and the principal are allowed now.
  const findGrant = provider.Grant.find.bind(provider.Grant);
  // The casts restate the provider's generic static `find` (typed for any token class) for the one class it is installed on.
  provider.Grant.find = (async (id: string, options?: { ignoreExpiration?: boolean }) => {
    const grant = (await findGrant(id, options)) as Grant | undefined;
    if (grant) await narrowToCurrentScopes(deps, grant);
    return grant;
  }) as typeof provider.Grant.find;
  // Trust the forwarded headers: mountProvider sets them itself from the issuer and Fastify's view of the client.
  provider.proxy = true;
  registerCredentialGrants(provider, {
    db: deps.db,
    accounts: deps.accounts,
    clients: deps.clients,
    knownScopes: known,
    issuer: deps.issuer,
    tokenEndpoint: new URL(ROUTES.token, deps.issuer).href,
    delegationMaxDepth: deps.delegationMaxDepth,
    organizations: orgs,
    credentials: deps.credentials,
  });
  provider.use(shapeResponses(deps, orgs));
  provider.on('server_error', (ctx: any, err: Error) => {
    // A dropped or unreachable database is temporary: RFC 6749's temporarily_unavailable with Retry-After, not a 500.
    if (isDatabaseUnavailable(err)) {
      ctx.status = 503;
      ctx.set('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
      if (typeof ctx.body === 'object')
        ctx.body = { error: 'temporarily_unavailable', error_description: 'the database is unavailable; retry later' };
      return;
    }
    deps.log.error({ err }, 'oidc provider error');
  });
  return provider;
}

/**
 * What the contract adds to the provider's introspection answer of an active token: `username`, the `sub` of a
 * client-credentials token (its app's principal), an array `aud`, `token_type`, and an organization token's role and
 * permissions as they are now (the membership mayIntrospect checked). Used by shapeResponses and the fast route alike.
 */
export async function addIntrospectionFields(
  deps: Pick<ProviderDeps, 'clients' | 'accounts'>,
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

/** Whether the token request failed because its client may not use the (supported) grant type: read from the request, not the error's text. */
function grantTypeRefused(ctx: KoaContextWithOIDC): boolean {
  const client = ctx.oidc.entities?.Client;
  const grantType = ctx.oidc.params?.grant_type;
  return (
    client !== undefined &&
    typeof grantType === 'string' &&
    SUPPORTED_GRANTS.has(grantType) &&
    !client.grantTypeAllowed(grantType)
  );
}

/** The provider's JSON answer, when it gave one (Koa types a body as unknown). */
function answerOf(ctx: KoaContextWithOIDC): Record<string, unknown> | undefined {
  return typeof ctx.body === 'object' && ctx.body !== null && !Buffer.isBuffer(ctx.body)
    ? (ctx.body as Record<string, unknown>)
    : undefined;
}

/** The grant types the contract names, and the credential grants beside them: discovery lists every one the token endpoint takes. */
const CONTRACT_GRANTS = ['authorization_code', 'refresh_token', 'client_credentials'];
const SUPPORTED_GRANTS = new Set<string>([...CONTRACT_GRANTS, ...CREDENTIAL_GRANTS]);
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'] as const;
/** Introspection takes HTTP Basic (the contract) or a client assertion of an app with keys; nothing else. */
const INTROSPECTION_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt'];
const CLOCK_TOLERANCE_SECONDS = 15;

/**
 * Adjusts the provider's answers to the contract: introspection needs HTTP Basic, revocation Basic or a public app's client_id; introspection carries `username` and an array
 * `aud`; a grant the app may not use is unauthorized_client; signing out through the provider also ends the service's login session.
 */
function shapeResponses(deps: ProviderDeps, orgs: OrganizationTokens) {
  const postOnly = new Set<string>([ROUTES.token, ROUTES.introspection, ROUTES.revocation]);
  const unauthenticated = (ctx: KoaContextWithOIDC, description: string) => {
    ctx.status = 401;
    ctx.set('WWW-Authenticate', 'Basic realm="identity"');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error: 'invalid_client', error_description: description };
  };
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    // The contract authenticates introspection with HTTP Basic; an app with registered keys may send a client assertion
    // instead (private_key_jwt), which the provider judges. Anything else — no authentication, which the provider would
    // answer 400 invalid_request, a secret in the body, or a public client's client_id alone (v9 has one auth method per
    // client for every endpoint, `none` for public apps) — is invalid_client, 401 with a challenge (RFC 6749 5.2), and
    // whatever the provider answered is replaced (introspection changes nothing).
    const introspectionWithoutBasic =
      ctx.method === 'POST' && ctx.path === ROUTES.introspection && !/^Basic \S/i.test(ctx.get('authorization'));
    await next();
    if (introspectionWithoutBasic && ctx.oidc?.params?.client_assertion === undefined) {
      unauthenticated(
        ctx,
        'client authentication is required (HTTP Basic with client_id and client_secret, or a client assertion of an app with registered keys)',
      );
      return;
    }
    // Revocation also admits a public client by its client_id alone (RFC 7009 2.1), so the provider authenticates it; a request
    // that named no client at all is answered as the contract's missing client authentication.
    if (
      ctx.oidc?.route === 'revocation' &&
      ctx.status === 400 &&
      answerOf(ctx)?.error === 'invalid_request' &&
      !ctx.oidc.entities?.Client
    ) {
      unauthenticated(
        ctx,
        'client authentication is required (HTTP Basic with client_id and client_secret; a public app sends its client_id)',
      );
      return;
    }
    if (ctx.status === 404 && ctx.body == null) {
      // No endpoint took the request: OAuth's error shape instead of the router's plain "Not Found", and
      // 405 for the POST-only endpoints asked with another method.
      ctx.set('Cache-Control', 'no-store');
      if (postOnly.has(ctx.path) && ctx.method !== 'POST') {
        ctx.status = 405;
        ctx.set('Allow', 'POST');
        ctx.body = { error: 'invalid_request', error_description: `${ctx.path} only accepts POST` };
      } else {
        ctx.status = 404;
        ctx.body = { error: 'invalid_request', error_description: `no endpoint ${ctx.method} ${ctx.path}` };
      }
      return;
    }
    const route = ctx.oidc?.route;
    const answer = answerOf(ctx);
    if (route === 'introspection' && answer?.active === true) {
      const entities = ctx.oidc.entities;
      const token = entities.AccessToken ?? entities.ClientCredentials ?? entities.RefreshToken;
      if (!token?.clientId) return;
      await addIntrospectionFields(deps, orgs, token, answer);
    } else if ((route === 'introspection' || route === 'revocation') && answer?.error === 'unsupported_token_type') {
      // The service never issues structured (JWT) access tokens, so a JWT is simply not a live token of
      // ours: inactive at introspection, and revocation answers 200 as it always does.
      ctx.status = 200;
      ctx.body = route === 'introspection' ? { active: false } : '';
    } else if (
      route === 'token' &&
      ctx.status === 400 &&
      answer?.error === 'invalid_request' &&
      grantTypeRefused(ctx)
    ) {
      // RFC 6749 5.2 and the contract name this unauthorized_client; the provider says invalid_request.
      ctx.body = { ...answer, error: 'unauthorized_client' };
    } else if (route === 'discovery' && answer) {
      // What the server does, so a client reading discovery finds it (RFC 8414 section 2).
      answer.grant_types_supported = [...SUPPORTED_GRANTS];
      answer.introspection_endpoint_auth_methods_supported = INTROSPECTION_AUTH_METHODS;
      answer.revocation_endpoint_auth_methods_supported = [...CLIENT_AUTH_METHODS];
      answer.introspection_endpoint_auth_signing_alg_values_supported = [...KEY_ALGORITHMS];
      answer.revocation_endpoint_auth_signing_alg_values_supported = [...KEY_ALGORITHMS];
    } else if (route === 'end_session_confirm' && ctx.oidc.params?.logout) {
      const token = readCookie(ctx.get('cookie'), LOGIN_COOKIE);
      if (token) {
        await endLoginSession(deps.db, token);
        ctx.append('Set-Cookie', clearedLoginCookie());
      }
    }
  };
}
