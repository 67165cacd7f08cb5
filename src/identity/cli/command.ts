import { parseArgs } from 'node:util';
import type { CommandIO } from '../../kit/service.ts';
import { randomToken } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { migrate } from '../../kit/migrations.ts';
import { BUILT_IN_SCOPES, type IdentityConfig } from '../config.ts';
import { MIGRATIONS, openIdentityDatabase } from '../app.ts';
import { createHuman, makePlatformAdmin, setPassword } from '../principals/store.ts';
import { findHumanByEmail } from '../principals/view.ts';
import { createApp, createSecret } from '../apps/store.ts';
import { rotateSigningKeys } from '../oidc/signing-keys.ts';
import { APP_TYPES, type AppType } from '../apps/record.ts';

export const IDENTITY_USAGE = [
  'admin create --email EMAIL [--password PASSWORD] [--name NAME]   make a platform admin (a password is generated and shown once if omitted)',
  'apps create --name NAME [--type web|spa|native|machine|service] [--redirect-uri URI ...] [--scope SCOPE ...] [--first-party] [--resource-server] [--client-id ID]',
  'keys rotate                 new signing key signs from now on; the old one stays in the JWKS until what it signed expires',
];

class UsageProblem extends Error {}

export async function identityCommand(args: string[], config: IdentityConfig, io: CommandIO): Promise<number> {
  const [group, action, ...rest] = args;
  const db = await openIdentityDatabase(config);
  try {
    await migrate(db, MIGRATIONS);
    if (group === 'admin' && action === 'create') {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } }, strict: true });
      if (!values.email) throw new UsageProblem('--email is required');
      const generated = values.password ? undefined : randomToken(18);
      const password = values.password ?? generated!;
      const existing = await findHumanByEmail(db, values.email);
      if (existing) {
        await makePlatformAdmin(db, existing.id);
        if (values.password) await setPassword(db, existing.id, values.password);
        io.out(`${existing.identifier} is now a platform admin (principal ${existing.id})${values.password ? '; password updated' : ''}`);
        return 0;
      }
      const human = await createHuman(db, { email: values.email, password, displayName: values.name, isPlatformAdmin: true, emailVerified: true });
      io.out(`created platform admin ${human.identifier} (principal ${human.id})`);
      if (generated) io.out(`password (shown once): ${generated}`);
      return 0;
    }
    if (group === 'apps' && action === 'create') {
      const { values } = parseArgs({
        args: rest,
        options: {
          name: { type: 'string' }, type: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true },
          scope: { type: 'string', multiple: true }, 'first-party': { type: 'boolean' }, 'resource-server': { type: 'boolean' }, 'client-id': { type: 'string' },
        },
        strict: true,
      });
      if (!values.name) throw new UsageProblem('--name is required');
      if (values.type && !APP_TYPES.includes(values.type as AppType)) throw new UsageProblem(`--type must be one of ${APP_TYPES.join(', ')}`);
      const scopes = [...BUILT_IN_SCOPES, ...config.extraScopes];
      const app = await createApp(db, {
        name: values.name, appType: values.type as AppType | undefined, redirectUris: values['redirect-uri'],
        allowedScopes: values.scope?.flatMap((s) => s.split(/[ ,]+/).filter(Boolean)), firstParty: values['first-party'], resourceServer: values['resource-server'], clientId: values['client-id'],
      }, scopes);
      io.out(`client_id: ${app.clientId}`);
      io.out(`app id: ${app.id}  type: ${app.appType}  grants: ${app.allowedGrants.join(' ')}  scopes: ${app.allowedScopes.join(' ') || '(none)'}`);
      if (app.resourceServer) io.out('resource server: may introspect tokens issued to other apps');
      if (!app.public) io.out(`client_secret (shown once): ${(await createSecret(db, app.id)).secret}`);
      return 0;
    }
    if (group === 'keys' && action === 'rotate') {
      const r = await rotateSigningKeys(db, config.secretKey);
      io.out(`new signing key ${r.kid}${r.retired.length ? `; retired ${r.retired.join(', ')} (published until what they signed expires)` : ''}`);
      io.out('running servers pick it up within IDENTITY_KEY_REFRESH_SECONDS');
      return 0;
    }
    throw new UsageProblem(`unknown command "identity ${args.join(' ')}"`);
  } catch (err) {
    if (err instanceof UsageProblem || err instanceof HttpError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`platform identity: ${(err as Error).message}`);
      if (err instanceof UsageProblem || !(err instanceof HttpError)) for (const u of IDENTITY_USAGE) io.err(`  platform identity ${u}`);
      return 2;
    }
    throw err;
  } finally {
    await db.close();
  }
}
