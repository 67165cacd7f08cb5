import { errors, type Configuration, type Grant, type KoaContextWithOIDC } from 'oidc-provider';
import { heldScopes } from '../principals/console-rights.ts';
import { settleFirstPartyGrant } from './first-party-grant.ts';
import {
  boundOrganization,
  orgClaims,
  type OrganizationTokens,
  type OrgMembership,
} from '../organizations/token-scope.ts';
import { claimsOf } from './claims.ts';
import { appClaims } from './mapped-claims.ts';
import { grantableScopes } from './entitlement.ts';
import { grantLifetimeNeeded } from './lifetimes.ts';
import type { ProviderDeps } from './provider.ts';

type ExtraTokenClaims = NonNullable<Configuration['extraTokenClaims']>;
type Token = Parameters<ExtraTokenClaims>[1];

const words = (v: unknown) =>
  String(v ?? '')
    .split(' ')
    .filter(Boolean);

/**
 * Client credentials: the provider drops unknown scopes silently (so the raw body is read here) and checks the others
 * against the app's list only when it has one. Here every requested scope must be known and allowed to the app. The fast
 * route (fast-client-credentials.ts) saves its token outside a request of the provider's: no ctx, the client's scope read
 * where the provider's Client gets it.
 */
async function checkClientCredentialsScopes(
  deps: ProviderDeps,
  known: ReadonlySet<string>,
  ctx: KoaContextWithOIDC | undefined,
  token: Token,
): Promise<void> {
  const clientScope = ctx ? ctx.oidc.client?.scope : (await deps.clients.app(token.clientId!))?.allowedScopes.join(' ');
  const allowed = new Set(words(clientScope));
  for (const scope of words(ctx?.oidc.body?.scope ?? token.scope)) {
    if (!known.has(scope) || !allowed.has(scope))
      throw new errors.InvalidScope('requested scope is not allowed', scope);
  }
}

/**
 * What a token carries beyond the provider's claims: org_id for an organization-scoped token (introspection shows it
 * from `extra`), and a delegated token's act, delegation_chain and parent_token_id (the features' tokenClaims).
 */
export function extraTokenClaims(deps: ProviderDeps, known: ReadonlySet<string>, orgs: OrganizationTokens) {
  return (async (ctx, token) => {
    if (token.kind === 'ClientCredentials') await checkClientCredentialsScopes(deps, known, ctx, token);
    // A client-credentials token speaks for the app's principal.
    const principalId =
      token.kind === 'ClientCredentials'
        ? token.clientId
          ? (await deps.clients.app(token.clientId))?.principalId
          : undefined
        : token.accountId;
    const org = await orgs.claimFor(ctx, principalId);
    const delegated = deps.tokenClaims(token);
    const member = org && ctx ? await orgs.decide(ctx, principalId) : undefined;
    const mapped = await appClaims(deps, token.clientId, 'access_token', principalId, member && orgClaims(member));
    const all = { ...mapped, ...delegated, ...org };
    return Object.keys(all).length ? all : undefined;
  }) satisfies ExtraTokenClaims;
}

/**
 * The account a token or a session speaks for, while it is active. At the token endpoint the organization is decided
 * here, before a refresh token is rotated; elsewhere (userinfo) an organization token whose membership has ended finds
 * no account, so it is refused.
 */
export function findAccount(deps: ProviderDeps, orgs: OrganizationTokens): NonNullable<Configuration['findAccount']> {
  return async (ctx, sub, token) => {
    const account = await deps.accounts.find(sub);
    if (!account?.active) return undefined;
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
  };
}

/**
 * The grant an authorization request reuses: the session's for this app while it can still cover a full refresh-token
 * lifetime; for a first-party app without one, a new grant of what the app and the principal are both allowed (no consent).
 */
export function loadExistingGrant(deps: ProviderDeps): NonNullable<Configuration['loadExistingGrant']> {
  return async (ctx) => {
    const client = ctx.oidc.client;
    const accountId = ctx.oidc.session?.accountId;
    if (!client || !accountId) return undefined;
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(client.clientId);
    let reused: Grant | undefined;
    if (grantId) {
      const grant = await ctx.oidc.provider.Grant.find(grantId);
      if (ctx.oidc.result?.consent?.grantId) return grant;
      if (
        grant &&
        grant.accountId === accountId &&
        (grant.exp ?? Infinity) - Date.now() / 1000 > grantLifetimeNeeded(client)
      ) {
        if (client.first_party !== true) return grant;
        reused = grant;
      }
    }
    if (client.first_party !== true) return undefined;
    // First-party apps skip consent: the grant is what the app allows and the principal holds, now.
    const account = await deps.accounts.find(accountId);
    if (!account) return undefined;
    const grant: Grant = reused ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
    const requested = ctx.oidc.requestParamScopes;
    settleFirstPartyGrant(grant, requested, grantableScopes(requested, client.scope, heldScopes(account)));
    await grant.save();
    return grant;
  };
}
