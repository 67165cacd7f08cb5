import type { ClientStore } from '../oidc/clients.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { heldScopes } from '../principals/console-rights.ts';

/**
 * Whether `subject` holds `scope` now. `subject` is what a resource server learnt from a token: its `sub` (a
 * principal's id: the principal must exist, be active and hold the scope, `heldScopes`, the rule every person's token
 * is checked by), or, for a token without one (client credentials), its `client_id` (the app must be active and allow
 * the scope). What a resource server asks before honouring a credential of its own that speaks for someone, such as
 * an audit API key made in the console.
 */
export async function holdsScope(
  deps: { accounts: PrincipalDirectory; clients: ClientStore },
  subject: string,
  scope: string,
): Promise<boolean> {
  const principal = await deps.accounts.find(subject);
  if (principal) return principal.active && heldScopes(principal).includes(scope);
  const app = await deps.clients.app(subject);
  return app?.active === true && app.allowedScopes.includes(scope);
}
