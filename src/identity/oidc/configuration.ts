import { createHmac } from 'node:crypto';
import { clientBasedCors } from './client-cors.ts';
import Provider, { type Configuration } from 'oidc-provider';
import { DPOP_ALGS } from '../../kit/auth/dpop.ts';
import type { OrganizationTokens } from '../organizations/token-scope.ts';
import { ORGANIZATION_PARAM } from '../organizations/token-scope.ts';
import { accountClientMetadata } from '../apps/built-in-clients.ts';
import { adapterFactory } from './adapter.ts';
import { EXTRA_CLIENT_PROPERTIES } from './clients.ts';
import { clientAssertionCheck } from './client-assertions.ts';
import { mayIntrospect } from './entitlement.ts';
import { fastRouteOrigin } from './fast-route.ts';
import { interactionPolicyFor } from './interaction-policy.ts';
import { lifetimes } from './lifetimes.ts';
import { CLIENT_AUTH_METHODS, KEY_ALGORITHMS, ROUTES } from './protocol.ts';
import { pageForError, pageForLogout, pageForLogoutSuccess } from './provider-pages.ts';
import { deviceCodeConfirmPage, deviceCodeInputPage, deviceSuccessPage } from './device-pages.ts';
import { extraTokenClaims, findAccount, loadExistingGrant } from './token-hooks.ts';
import type { ProviderDeps } from './provider.ts';
import { guardedProviderFetch } from './outbound-fetch.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { LOGIN_COOKIE } from '../sessions/cookie.ts';
import { readCookie } from '../web/cookies.ts';

const CLOCK_TOLERANCE_SECONDS = 15;

function hkdfKey(secretKey: Buffer, purpose: string): string {
  return createHmac('sha256', secretKey).update(`identity.${purpose}`).digest('base64url');
}

/**
 * oidc-provider's configuration, section by section: where it stores, which clients and client authentication it takes,
 * what tokens carry and how long they live, its features, its signing algorithms, its sign-in interaction and its pages.
 */
export function providerConfiguration(deps: ProviderDeps, orgs: OrganizationTokens): Configuration {
  const known = new Set(deps.scopes);
  return {
    ...storage(deps),
    ...clientsAndAuthentication(deps),
    ...claimsAndKeys(deps),
    ...lifecycle(deps, known, orgs),
    features: features(deps, orgs),
    enabledJWA: algorithms(),
    ttl: lifetimes(deps.loginSessionTtl),
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: interactionPolicyFor(deps.db, known, orgs),
    },
    renderError: pageForError,
    // Everything the provider sends out (logout tokens) goes through the service's guard against the internal network.
    fetch: guardedProviderFetch(deps.outbound),
    extraParams: { [ORGANIZATION_PARAM]: orgs.validateParam },
  };
}

/** Every artifact through the adapter (adapter.ts); a token a fast route saves finds its request's origin there. */
function storage(deps: ProviderDeps): Pick<Configuration, 'adapter'> {
  return {
    adapter: adapterFactory({
      db: deps.db,
      secretKey: deps.secretKey,
      clients: deps.clients,
      accessTokenCommit: deps.accessTokenCommit,
      origin: () => {
        const fast = fastRouteOrigin.getStore();
        if (fast) return fast;
        const ctx = Provider.ctx;
        return { ip: ctx?.ip, userAgent: ctx?.get?.('user-agent')?.slice(0, 512) || undefined };
      },
      loginHash: () => {
        const token = readCookie(Provider.ctx?.get?.('cookie'), LOGIN_COOKIE);
        return token ? sha256Hex(token) : undefined;
      },
    }),
  };
}

function clientsAndAuthentication(deps: ProviderDeps): Partial<Configuration> {
  return {
    // Static clients: identity's own account pages sign people in through the normal sign-in (apps/built-in-clients.ts), and
    // `platform start` adds one per service of the platform it runs beside identity.
    clients: [accountClientMetadata(deps.issuer), ...(deps.builtInClients ?? [])],
    routes: ROUTES,
    clientBasedCORS: clientBasedCors,
    responseTypes: ['code'],
    // private_key_jwt for apps with registered keys, beside their secrets (client-assertions.ts).
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    assertJwtClientAuthClaimsAndHeader: clientAssertionCheck(deps.keys, CLOCK_TOLERANCE_SECONDS),
    extraClientMetadata: { properties: [...EXTRA_CLIENT_PROPERTIES], validator: () => undefined },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    // The contract makes redirect_uri required at the authorization endpoint (and the code grant names it); the provider
    // would otherwise fill in an app's only registered URI when it is left out.
    allowOmittingSingleRegisteredRedirectUri: false,
  };
}

function claimsAndKeys(deps: ProviderDeps): Partial<Configuration> {
  return {
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
  };
}

/** What tokens carry and how they are issued, rotated and looked up. */
function lifecycle(deps: ProviderDeps, known: ReadonlySet<string>, orgs: OrganizationTokens): Partial<Configuration> {
  return {
    // Refresh tokens for every app allowed the refresh_token grant, with or without offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: (ctx) => ctx.oidc.entities.Client?.refresh_token_rotation !== false,
    // Tokens live by their own lifetimes; signing out of the browser does not revoke apps' tokens.
    expiresWithSession: async () => false,
    extraTokenClaims: extraTokenClaims(deps, known, orgs),
    findAccount: findAccount(deps, orgs),
    loadExistingGrant: loadExistingGrant(deps),
  };
}

function features(deps: ProviderDeps, orgs: OrganizationTokens): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: {
      enabled: true,
      // Only confidential clients can authenticate here (HTTP Basic, see responses.ts). A token's details go to its own
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
    // RFC 8628 for native apps (apps/record.ts): the device shows a user code, the person types it at /oauth/device
    // (device-pages.ts), signs in and approves there; the device polls the token endpoint meanwhile (device-polling.ts
    // answers slow_down). base-20 consonants in two groups of four: 20^8 codes, none of them a word, easy to read out.
    deviceFlow: {
      enabled: true,
      charset: 'base-20',
      mask: '****-****',
      userCodeInputSource: deviceCodeInputPage,
      userCodeConfirmSource: deviceCodeConfirmPage,
      successSource: deviceSuccessPage,
    },
    rpInitiatedLogout: {
      enabled: true,
      logoutSource: pageForLogout,
      postLogoutSuccessSource: pageForLogoutSuccess,
    },
    // OpenID Connect Back-Channel Logout 1.0: the provider's own logout tells the session's apps; every other end of a
    // session is queued by the database and told by back-channel-logout.ts, through the same client method.
    backchannelLogout: { enabled: true },
  };
}

function algorithms(): Configuration['enabledJWA'] {
  return {
    idTokenSigningAlgValues: ['RS256'],
    userinfoSigningAlgValues: ['RS256'],
    introspectionSigningAlgValues: ['RS256'],
    authorizationSigningAlgValues: ['RS256'],
    // The algorithms a registered key may have (protocol.ts).
    clientAuthSigningAlgValues: [...KEY_ALGORITHMS],
    requestObjectSigningAlgValues: ['RS256'],
    // The kit's list, which the platform's resource servers accept too.
    dPoPSigningAlgValues: [...DPOP_ALGS],
  };
}
