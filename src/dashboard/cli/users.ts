import { CommandFailure, UsageError, str, type Command } from '../../kit/cli-runner.ts';
import { recordAudit } from '../audit/record.ts';
import { jwtKeys } from '../auth/jwt.ts';
import { isRole } from '../auth/roles.ts';
import { startSession } from '../auth/sessions.ts';
import { createUser, findUserByEmail } from '../users/store.ts';
import { tenantBySlug, type CommandDeps } from './deps.ts';

export function usersCreate({ withDatabase }: CommandDeps): Command {
  return {
    path: ['users', 'create'],
    synopsis: '--tenant SLUG --email EMAIL --name NAME --role viewer|editor|admin|owner',
    summary: 'add a user to a tenant',
    options: {
      tenant: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
    },
    required: ['tenant', 'email', 'name', 'role'],
    run: ({ values, result }) => {
      const role = str(values, 'role')!;
      if (!isRole(role)) throw new UsageError('--role must be one of viewer, editor, admin, owner');
      const email = str(values, 'email')!;
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email is not an email address');
      return withDatabase(async (db) => {
        const tenant = await tenantBySlug(db, str(values, 'tenant')!);
        const u = await createUser(db, { tenantId: tenant.id, email, name: str(values, 'name')!, role });
        await recordAudit(db, {
          tenantId: tenant.id,
          userId: null,
          action: 'user.create',
          targetType: 'user',
          targetId: u.id,
          details: { email, role, by: 'cli' },
        });
        result(u, [`user ${u.id} ${u.email} (${u.role}) in ${tenant.slug}`]);
      });
    },
  };
}

export function token({ config, withDatabase }: CommandDeps): Command {
  return {
    path: ['token'],
    synopsis: '--tenant SLUG --email EMAIL',
    summary: "sign a user in from the operator's shell: prints a token pair as JSON",
    options: { tenant: { type: 'string' }, email: { type: 'string' } },
    required: ['tenant', 'email'],
    exports: (pair: { accessToken?: string; refreshToken?: string }) => ({
      DASHBOARD_TOKEN: pair.accessToken,
      DASHBOARD_REFRESH_TOKEN: pair.refreshToken,
    }),
    run: ({ values, result }) =>
      withDatabase(async (db) => {
        const tenant = await tenantBySlug(db, str(values, 'tenant')!);
        const user = await findUserByEmail(db, tenant.id, str(values, 'email')!);
        if (!user) throw new CommandFailure(`no user ${str(values, 'email')} in tenant ${tenant.slug}`);
        if (!user.active) throw new CommandFailure(`user ${user.email} is deactivated`);
        const tokens = {
          keys: jwtKeys(config.jwtSecret, config.secretKey),
          accessTtl: config.accessTokenTtl,
          refreshTtl: config.refreshTokenTtl,
        };
        const who = { id: user.id, email: user.email, role: user.role, tenantId: user.tenant_id };
        const pair = await startSession(db, tokens, who, 'cli');
        result(pair, [JSON.stringify(pair)]);
      }),
  };
}
