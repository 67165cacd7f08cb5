import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { actor, recordAudit } from '../audit/record.ts';
import type { AuditAction } from '../audit/actions.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { conflictOn, forbidden, validation } from '../errors.ts';
import type { DashboardLinks } from '../platform-link.ts';
import { guardChange, keepAnOwner } from './owners.ts';
import type { NewUserBody, UserChangeBody } from './schemas.ts';
import { createUser, EmailTaken, markPlatformAccountMade, setActive, setName, setRole, type UserRow } from './store.ts';

type Context = Pick<DashboardContext, 'db' | 'config'>;
type Identity = NonNullable<DashboardLinks['identity']>;
export type Invited = Awaited<ReturnType<Identity['inviteAccount']>>;

/**
 * Adds a person to the caller's tenant; with identity linked, identity makes (or finds) their platform account last
 * in the transaction, so its refusal or failure rolls the user back and the form can be sent again.
 */
export async function addUser(
  ctx: Context,
  request: FastifyRequest,
  body: Static<typeof NewUserBody>,
): Promise<{ created: UserRow; account: Invited | undefined }> {
  const me = currentUser(request);
  const { email, role } = body;
  const name = body.name.trim();
  if (role === 'owner' && me.role !== 'owner') throw forbidden('only an owner may make an owner');
  return ctx.db.transaction(async (tx) => {
    const created = await createUser(tx, { tenantId: me.tenantId, email, name, role }).catch(conflictOn(EmailTaken));
    const account = await inviteAccount(ctx, email, name);
    if (account?.status === 'created') await markPlatformAccountMade(tx, created.id);
    await recordAudit(tx, {
      ...actor(request),
      action: 'user.create',
      targetType: 'user',
      targetId: created.id,
      // Whether identity made an account, never the link: it is a credential until used.
      details: { email, role, ...(account ? { platformAccount: account.status } : {}) },
    });
    return { created, account };
  });
}

/** Identity's account for a new user, when the dashboard is linked; its own refusal is the caller's 400. */
async function inviteAccount(ctx: Context, email: string, name: string): Promise<Invited | undefined> {
  const linked = ctx.config.links?.identity;
  if (!linked) return undefined;
  return linked.inviteAccount({ email, name }).catch((err: unknown) => {
    if (err instanceof HttpError && err.statusCode < 500)
      throw validation(`email: the platform's identity service refused it: ${err.message}`);
    throw err;
  });
}

/** Renames, changes the role of, deactivates or reactivates a user; each change that happens is audited on its own. */
export async function changeUser(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  body: Static<typeof UserChangeBody>,
): Promise<UserRow> {
  const { role, active } = body;
  const name = body.name?.trim();
  return ctx.db.transaction(async (tx) => {
    const target = await guardChange(tx, request, id, role, active === false);
    let updated = target;
    if (name !== undefined && name !== target.name) updated = await rename(tx, request, target, name);
    if (role !== undefined && role !== target.role) updated = await changeRole(tx, request, target, role);
    if (active !== undefined && active !== target.active) updated = await setActivity(tx, request, target, active);
    return updated;
  });
}

/** Deactivates a user (their tokens stop working at once); one already inactive stays as it is. */
export async function deactivateUser(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const target = await guardChange(tx, request, id, undefined, true);
    if (target.active) await setActivity(tx, request, target, false);
  });
}

async function rename(tx: Queryable, request: FastifyRequest, target: UserRow, name: string): Promise<UserRow> {
  const updated = (await setName(tx, target.tenant_id, target.id, name))!;
  await recordAudit(tx, { ...userChange(request, target, 'user.rename'), details: { from: target.name, to: name } });
  return updated;
}

async function changeRole(tx: Queryable, request: FastifyRequest, target: UserRow, role: UserRow['role']) {
  const updated = (await setRole(tx, target.tenant_id, target.id, role))!;
  await recordAudit(tx, {
    ...userChange(request, target, 'user.role_change'),
    details: { from: target.role, to: role },
  });
  return updated;
}

async function setActivity(tx: Queryable, request: FastifyRequest, target: UserRow, active: boolean) {
  if (!active) await keepAnOwner(tx, target);
  const updated = (await setActive(tx, target.tenant_id, target.id, active))!;
  await recordAudit(tx, userChange(request, target, active ? 'user.reactivate' : 'user.deactivate'));
  return updated;
}

const userChange = (request: FastifyRequest, target: UserRow, action: AuditAction) => ({
  ...actor(request),
  action,
  targetType: 'user',
  targetId: target.id,
});
