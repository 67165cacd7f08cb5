import type { AccountClaims } from 'oidc-provider';
import type { PrincipalView } from '../principals/view.ts';

/** OpenID claims of a principal; the provider keeps those the token's scopes name. */
export function claimsOf(principal: PrincipalView): AccountClaims {
  const h = principal.human;
  return {
    sub: principal.id,
    email: h?.email ?? undefined,
    email_verified: h ? h.emailVerifiedAt !== null : undefined,
    name: principal.displayName,
    given_name: h?.givenName ?? undefined,
    family_name: h?.familyName ?? undefined,
    locale: h?.locale ?? undefined,
    zoneinfo: h?.timezone ?? undefined,
    updated_at: Math.floor(new Date(principal.updatedAt).getTime() / 1000),
  };
}
