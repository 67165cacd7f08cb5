import { HttpError } from '../../kit/errors.ts';
import type { Queryable } from '../../kit/db.ts';
import type { MarketCaller } from '../access/market.ts';
import { activeRole } from '../organizations/store.ts';

/** Roles of an active membership that manage an organization's listings, licenses and seats. */
export const MANAGER_ROLES = ['owner', 'admin'] as const;

export async function isMember(db: Queryable, caller: MarketCaller, organizationId: string): Promise<boolean> {
  return caller.platformAdmin || (await activeRole(db, organizationId, caller.principalId)) !== undefined;
}

export async function isManager(db: Queryable, caller: MarketCaller, organizationId: string): Promise<boolean> {
  if (caller.platformAdmin) return true;
  const role = await activeRole(db, organizationId, caller.principalId);
  return role !== undefined && (MANAGER_ROLES as readonly string[]).includes(role);
}

/**
 * The principal recorded as having acted (owner_id, purchased_by, assigned_by): the caller, or for
 * IDENTITY_ADMIN_TOKEN, which speaks for nobody, the principal named in the request.
 */
export function actingPrincipal(caller: MarketCaller, named: string | undefined, field: string): string {
  if (caller.principalId) {
    if (named !== undefined && named !== caller.principalId && !caller.platformAdmin)
      throw new HttpError(403, 'FORBIDDEN', `${field} must be yourself`);
    return named ?? caller.principalId;
  }
  if (!named)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `${field} is required with IDENTITY_ADMIN_TOKEN (the token speaks for nobody)`,
    );
  return named;
}
