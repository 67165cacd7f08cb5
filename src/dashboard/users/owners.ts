import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { Role } from '../auth/roles.ts';
import { conflict, forbidden, notFound, validation } from '../errors.ts';
import { lockTenant } from '../tenants/store.ts';
import { getUser, lockUser, otherActiveOwners, type UserRow } from './store.ts';

/** The target of a change, locked; refuses an admin touching an owner or making one, and anyone deactivating themselves. */
export async function guardChange(
  tx: Queryable,
  request: FastifyRequest,
  id: number,
  newRole: Role | undefined,
  deactivating: boolean,
): Promise<UserRow> {
  const me = currentUser(request);
  if (!(await lockUser(tx, me.tenantId, id))) throw notFound('user');
  const target = (await getUser(tx, me.tenantId, id))!;
  if (me.role !== 'owner' && (target.role === 'owner' || newRole === 'owner'))
    throw forbidden('only an owner may change an owner or make one');
  if (newRole !== undefined && newRole !== 'owner' && target.role === 'owner') await keepAnOwner(tx, target);
  if (deactivating && target.id === me.id) throw validation('you cannot deactivate yourself');
  return target;
}

/** Refuses a change that would leave the target's tenant without an active owner. */
export async function keepAnOwner(tx: Queryable, target: UserRow): Promise<void> {
  if (target.role !== 'owner' || !target.active) return;
  // Serialise owner changes of one tenant, so two demotions at once cannot leave it without an owner.
  await lockTenant(tx, target.tenant_id);
  if ((await otherActiveOwners(tx, target.tenant_id, target.id)) === 0)
    throw conflict('a tenant must keep at least one active owner');
}
