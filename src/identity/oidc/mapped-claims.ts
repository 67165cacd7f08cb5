import { mappedClaims } from '../apps/claim-mappings.ts';
import type { ClientStore } from './clients.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { claimsOf } from './claims.ts';
import type { OidcProvider } from './provider.ts';

/** What the token's organization gives: `org_id`, `org_role`, `org_permissions` (organizations/token-scope.ts). */
type OrgClaims = { org_id?: unknown; org_role?: unknown; org_permissions?: unknown };

interface Sources {
  clients: ClientStore;
  accounts: PrincipalDirectory;
}

/** The app's mapped claims (apps/claim-mappings.ts) for one token of one person; none for an app without mappings. */
export async function appClaims(
  deps: Sources,
  clientId: string | undefined,
  token: 'id_token' | 'access_token',
  principalId: string | undefined,
  org: OrgClaims | undefined,
): Promise<Record<string, unknown>> {
  if (!clientId || !principalId) return {};
  const app = await deps.clients.app(clientId);
  if (!app?.claimMappings.length) return {};
  const principal = await deps.accounts.find(principalId);
  if (!principal) return {};
  const c = claimsOf(principal);
  return mappedClaims(app.claimMappings, token, {
    profile: {
      name: c.name,
      email: c.email,
      email_verified: c.email_verified,
      given_name: c.given_name,
      family_name: c.family_name,
      locale: c.locale,
    },
    metadata: principal.metadata,
    organization: org?.org_id ? { id: org.org_id, role: org.org_role, permissions: org.org_permissions } : null,
  });
}

/**
 * ID tokens carry the app's mapped claims. The provider keeps only the claims its configuration lists for the granted
 * scopes, a fixed set; claims set on the token itself (`set`) are kept as they are, so they are set just before it is
 * signed — for an ID token only, never a logout token.
 */
export function mapClaimsIntoIdTokens(provider: OidcProvider, deps: Sources): void {
  const IdToken = provider.IdToken;
  const issue = IdToken.prototype.issue;
  IdToken.prototype.issue = async function issueWithMappedClaims(
    this: InstanceType<typeof IdToken> & {
      available: Record<string, unknown>;
      client?: { clientId: string };
      set(key: string, value: unknown): void;
    },
    options?: { use?: string },
  ) {
    if (options?.use === 'idtoken') {
      const sub = typeof this.available.sub === 'string' ? this.available.sub : undefined;
      const claims = await appClaims(deps, this.client?.clientId, 'id_token', sub, this.available);
      for (const [key, value] of Object.entries(claims)) this.set(key, value);
    }
    return issue.call(this, options as never);
  } as typeof issue;
}
