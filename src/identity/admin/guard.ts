import type { TokenVerifier } from '../../kit/auth/admin-guard.ts';
import { heldScopes } from '../principals/console-rights.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';
import type { OrganizationTokens } from '../organizations/token-scope.ts';
import type { Queryable } from '../../kit/db.ts';
import { delegationLive, delegationOf } from '../delegation/entitlement.ts';

/**
 * Identity checks its own access tokens in its own store rather than introspecting itself over HTTP.
 * A token counts while it is unexpired and unrevoked, issued through an app that is still active to a
 * principal who is still active, with the scopes the principal still holds (`admin` only for a platform admin). A
 * client-credentials token is not found here: it belongs to no person, so it never opens the
 * management API (machines use IDENTITY_ADMIN_TOKEN). A token an agent holds for a person is reported
 * `delegated`, and every consumer here refuses it (see refuseDelegated in the kit guard). A DPoP-bound token
 * is reported with its `jkt`; the kit guard then wants a proof by that key.
 */
export function localTokenVerifier(
  holder: ProviderHolder,
  accounts: PrincipalDirectory,
  clients: ClientStore,
  db: Queryable,
  orgs?: OrganizationTokens,
  builtInClientIds: readonly string[] = [],
): TokenVerifier {
  // The built-in clients of `platform start` (the console's) are not in oauth_apps and cannot be deactivated.
  const builtIn = new Set(builtInClientIds);
  const appActive = async (clientId: string) => builtIn.has(clientId) || (await clients.app(clientId))?.active === true;
  return async (value) => {
    const token = await holder.current.AccessToken.find(value);
    // The provider's find checks neither the app the token was issued to nor its grant: a deactivated app's tokens must not count.
    if (!token || token.isExpired || !token.clientId || !(await appActive(token.clientId))) return undefined;
    const account = await accounts.find(token.accountId);
    if (!account?.active) return undefined;
    // A token an agent holds for this person counts only while its whole delegation chain does.
    if (!(await delegationLive(db, accounts, token))) return undefined;
    // An organization-scoped token stops counting once its membership (or the organization) is deactivated.
    if (orgs && !(await orgs.stillMember(token, account.id))) return undefined;
    // Only scopes the principal still holds: a right taken away (or `admin` without the platform-admin flag) stops
    // counting at once, not when the token expires.
    const held = new Set(heldScopes(account));
    const scopes = String(token.scope ?? '')
      .split(' ')
      .filter((s) => s && (s === 'openid' || held.has(s)));
    return {
      scopes,
      subject: account.id,
      clientId: token.clientId,
      expiresAt: token.exp,
      delegated: delegationOf(token) !== undefined,
      jkt: token.jkt,
    };
  };
}
