import type { Grant } from 'oidc-provider';
import { heldScopes } from '../principals/console-rights.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { OrganizationTokens } from '../organizations/token-scope.ts';
import type { BuiltInClient } from '../apps/built-in-clients.ts';
import type { ClientStore } from './clients.ts';

/** Whom a token was issued to: its app, and the principal it speaks for (none for client credentials). */
export interface TokenOwners {
  clientId?: string | undefined;
  accountId?: string | undefined;
  /** The token's value and its extra claims: a delegated token's chain is there (src/identity/delegation). */
  jti?: string | undefined;
  extra?: Record<string, unknown> | undefined;
}

export interface EntitlementDeps {
  clients: ClientStore;
  accounts: PrincipalDirectory;
  /** Whether a delegated token's chain still counts (delegation/entitlement.ts); an ordinary token passes. */
  chainLive(token: TokenOwners): Promise<boolean>;
}

/**
 * Whether a token's app, and its principal if it has one, are still active: a deactivated one's tokens stop counting at once.
 * A delegated token also needs every agent of its chain active and no token above it revoked; an organization-scoped
 * token needs its principal's membership (and the organization) to be active still.
 */
export async function stillEntitled(
  deps: EntitlementDeps,
  token: TokenOwners,
  orgs?: OrganizationTokens,
): Promise<boolean> {
  if (!token.clientId) return false;
  const app = await deps.clients.app(token.clientId);
  if (!app?.active) return false;
  if (token.accountId) {
    if ((await deps.accounts.find(token.accountId))?.active !== true) return false;
    if (!(await deps.chainLive(token))) return false;
  }
  return orgs ? orgs.stillMember(token, token.accountId ?? app.principalId) : true;
}

/** Whether `callerId` may learn the details of `token`: its own app, or a resource server, and only while the token still counts. */
export async function mayIntrospect(
  deps: EntitlementDeps,
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
export async function narrowToCurrentScopes(
  deps: { clients: ClientStore; accounts: PrincipalDirectory; builtInClients?: BuiltInClient[] | undefined },
  grant: Grant,
): Promise<void> {
  const scope = grant.openid?.scope;
  if (!scope || !grant.accountId || !grant.clientId) return;
  const [app, account] = await Promise.all([deps.clients.app(grant.clientId), deps.accounts.find(grant.accountId)]);
  // A built-in client is not in oauth_apps: its scopes are the ones it was given at start.
  const clientScope = app
    ? app.allowedScopes.join(' ')
    : deps.builtInClients?.find((c) => c.client_id === grant.clientId)?.scope;
  grant.openid!.scope = grantableScopes(scope.split(' '), clientScope, heldScopes(account)).join(' ');
}
