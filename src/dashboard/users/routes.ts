import { Type } from 'typebox';
import { HttpError } from '../../kit/errors.ts';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { Role } from '../auth/roles.ts';
import { actor, recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, forbidden, notFound, validation } from '../errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import {
  DisplayText,
  Email,
  IdParams,
  IdPosition,
  ListQuery,
  RoleSchema,
  UserSchema,
  bearer,
  errors,
} from '../schemas.ts';
import { CreatedUserSchema } from './schemas.ts';
import { registerPasswordLinkRoute } from './password-link-routes.ts';
import {
  createUser,
  EmailTaken,
  getUser,
  listUsers,
  otherActiveOwners,
  setActive,
  setName,
  setRole,
  toUser,
  type UserRow,
} from './store.ts';

const tags = ['users'];

/** User administration (admin or owner): only an owner may make or change owners, and a tenant keeps at least one active owner. */
export function registerUserRoutes(app: App, ctx: DashboardContext): void {
  const { db } = ctx;

  app.get(
    '/api/v1/admin/users',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'listUsers',
        tags,
        security: bearer,
        summary: "Users of the caller's tenant, by id",
        querystring: ListQuery,
        response: { 200: pageOf(UserSchema), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const { limit, cursor } = request.query;
      const rows = await listUsers(db, tenantId, { after: decodeCursor(cursor, IdPosition)?.[0], limit: limit + 1 });
      return toPage(rows, limit, (r) => [r.id], toUser);
    },
  );

  app.get(
    '/api/v1/admin/users/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'getUser',
        tags,
        security: bearer,
        summary: 'One user of the tenant',
        params: IdParams,
        response: { 200: UserSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const row = await getUser(db, currentUser(request).tenantId, request.params.id);
      if (!row) throw notFound('user');
      return toUser(row);
    },
  );

  app.post(
    '/api/v1/admin/users',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'createUser',
        tags,
        security: bearer,
        summary:
          'Add a person to the tenant; they sign in with a provider that verifies this email (linked to identity: with a link to choose a password there)',
        body: Type.Object({ email: Email, name: DisplayText(200), role: RoleSchema }, { additionalProperties: false }),
        response: { 201: CreatedUserSchema, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const { email, name, role } = request.body;
      if (role === 'owner' && me.role !== 'owner') throw forbidden('only an owner may make an owner');
      const linked = ctx.config.links?.identity;
      const made = await db.transaction(async (tx) => {
        let created: UserRow;
        try {
          created = await createUser(tx, { tenantId: me.tenantId, email, name: name.trim(), role });
        } catch (err) {
          if (err instanceof EmailTaken) throw conflict(err.message);
          throw err;
        }
        // Last in the transaction, as the first run does it: identity refusing (or failing) rolls the user back, so the
        // form can be sent again; after identity answered only the audit row and the commit remain.
        const account = linked
          ? await linked.inviteAccount({ email, name: name.trim() }).catch((err: unknown) => {
              // Identity's own refusal (an address it does not take) is the caller's to fix: said as this route's 400.
              if (err instanceof HttpError && err.statusCode < 500)
                throw validation(`email: the platform's identity service refused it: ${err.message}`);
              throw err;
            })
          : undefined;
        if (account?.status === 'created')
          await tx.query('UPDATE users SET made_platform_account = true WHERE id = $1', [created.id]);
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
      // The link is answered this once and kept nowhere here; the response is not logged (only its status).
      const { created, account } = made;
      return reply.code(201).send({
        ...toUser(created),
        ...(account ? { platformAccount: account.status } : {}),
        ...(account?.status === 'created'
          ? { setupLink: account.setupLink, setupLinkExpiresAt: account.expiresAt }
          : {}),
      });
    },
  );

  app.patch(
    '/api/v1/admin/users/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'updateUser',
        tags,
        security: bearer,
        summary:
          "Change a user's name or role, or reactivate a deactivated user (`active: true`); a provider's name replaces the name at the user's next sign-in",
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(DisplayText(200)),
            role: Type.Optional(RoleSchema),
            active: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: UserSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const { role, active } = request.body;
      const name = request.body.name?.trim();
      const row = await db.transaction(async (tx) => {
        const target = await guardChange(tx, request, request.params.id, role, active === false);
        let updated = target;
        if (name !== undefined && name !== target.name) {
          updated = (await setName(tx, target.tenant_id, target.id, name))!;
          await recordAudit(tx, {
            ...actor(request),
            action: 'user.rename',
            targetType: 'user',
            targetId: target.id,
            details: { from: target.name, to: name },
          });
        }
        if (role !== undefined && role !== target.role) {
          updated = (await setRole(tx, target.tenant_id, target.id, role))!;
          await recordAudit(tx, {
            ...actor(request),
            action: 'user.role_change',
            targetType: 'user',
            targetId: target.id,
            details: { from: target.role, to: role },
          });
        }
        if (active !== undefined && active !== target.active) {
          if (!active) await keepAnOwner(tx, target);
          updated = (await setActive(tx, target.tenant_id, target.id, active))!;
          await recordAudit(tx, {
            ...actor(request),
            action: active ? 'user.reactivate' : 'user.deactivate',
            targetType: 'user',
            targetId: target.id,
          });
        }
        return updated;
      });
      return toUser(row);
    },
  );

  app.delete(
    '/api/v1/admin/users/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'deactivateUser',
        tags,
        security: bearer,
        summary: 'Deactivate a user: their tokens stop working at once (the record stays, for the audit log)',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await db.transaction(async (tx) => {
        const target = await guardChange(tx, request, request.params.id, undefined, true);
        if (!target.active) return;
        await keepAnOwner(tx, target);
        await setActive(tx, target.tenant_id, target.id, false);
        await recordAudit(tx, {
          ...actor(request),
          action: 'user.deactivate',
          targetType: 'user',
          targetId: target.id,
        });
      });
      return reply.code(204).send(null);
    },
  );
  registerPasswordLinkRoute(app, ctx);
}

type Tx = Parameters<Parameters<DashboardContext['db']['transaction']>[0]>[0];

/** The target of a change, locked; refuses an admin touching an owner or making one, and anyone deactivating themselves. */
async function guardChange(
  tx: Tx,
  request: Parameters<typeof currentUser>[0],
  id: number,
  newRole: Role | undefined,
  deactivating: boolean,
): Promise<UserRow> {
  const me = currentUser(request);
  const { rows } = await tx.query<{ id: number }>(`SELECT id FROM users WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [
    me.tenantId,
    id,
  ]);
  if (!rows[0]) throw notFound('user');
  const target = (await getUser(tx, me.tenantId, id))!;
  if (me.role !== 'owner' && (target.role === 'owner' || newRole === 'owner'))
    throw forbidden('only an owner may change an owner or make one');
  if (newRole !== undefined && newRole !== 'owner' && target.role === 'owner') await keepAnOwner(tx, target);
  if (deactivating && target.id === me.id) throw validation('you cannot deactivate yourself');
  return target;
}

async function keepAnOwner(tx: Tx, target: UserRow): Promise<void> {
  if (target.role !== 'owner' || !target.active) return;
  // Serialise owner changes of one tenant, so two demotions at once cannot leave it without an owner.
  await tx.query(`SELECT id FROM tenants WHERE id = $1 FOR UPDATE`, [target.tenant_id]);
  if ((await otherActiveOwners(tx, target.tenant_id, target.id)) === 0)
    throw conflict('a tenant must keep at least one active owner');
}
