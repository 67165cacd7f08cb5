import type { HeldScopeCheck } from '../../kit/auth/held-scope.ts';

/** The owner of what a person made with their access token: their jobs, sites and the keys they made in the console. */
export const TOKEN_OWNER = 'token:';

/** Where the person an owner names stands: holds the audits right, lost it, or cannot be checked (no identity configured). */
export type OwnerStanding = 'holds' | 'lost' | 'no-identity';

/**
 * The one rule for work done in a person's name without their token in hand (a key they made in the console, their
 * site's schedule): it is done only while they hold the scope their own token would need. Owners that are not persons
 * (`key:<id>`, a key made on the command line) always may. Throws the kit's `VerifierUnavailableError` when identity
 * does not answer.
 */
export type OwnerRight = (owner: string) => Promise<OwnerStanding>;

export function ownerRight(identity: { holdsScope: HeldScopeCheck; requiredScope: string } | null): OwnerRight {
  return async (owner) => {
    if (!owner.startsWith(TOKEN_OWNER)) return 'holds';
    if (!identity) return 'no-identity';
    const held = await identity.holdsScope(owner.slice(TOKEN_OWNER.length), identity.requiredScope);
    return held ? 'holds' : 'lost';
  };
}
