import type { CommandIO } from '../../kit/service.ts';
import { randomToken } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { commandDatabase } from '../../kit/service-config.ts';
import { UsageError, flag, runCommand, str, strs, usageLines, type CommandGroup } from '../../kit/cli-runner.ts';
import { BUILT_IN_SCOPES, type IdentityConfig } from '../config.ts';
import { MIGRATIONS } from '../app.ts';
import { createHuman, makePlatformAdmin, setPassword } from '../principals/store.ts';
import { findHumanByEmail } from '../principals/view.ts';
import { createApp, createSecret } from '../apps/store.ts';
import { rotateSigningKeys } from '../oidc/signing-keys.ts';
import { APP_TYPES, type AppType } from '../apps/record.ts';
import { mfaCommands } from '../mfa/cli.ts';
import { agentCommands } from '../delegation/cli.ts';
import { marketplaceCommands } from '../marketplace/cli.ts';
import { billingCommands } from '../billing/cli.ts';

/** `platform identity ...`: principals, apps and signing keys, straight against the service's database. */
function identityCommands(config: IdentityConfig): CommandGroup {
  const withDatabase = commandDatabase('identity', config, MIGRATIONS);
  return {
    name: 'identity',
    // The stores validate input with HttpError 400 (a bad redirect URI, an unknown scope): the caller's mistake.
    classify: (err) => (err instanceof HttpError && err.statusCode < 500 ? new UsageError(err.message) : undefined),
    commands: [
      {
        path: ['admin', 'create'],
        synopsis: '--email EMAIL [--password PASSWORD] [--name NAME]',
        summary: 'make a platform admin (a password is generated and shown once if omitted)',
        details: [
          'an existing account with this email becomes a platform admin (its password is replaced only if --password is given)',
        ],
        options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
        required: ['email'],
        run: ({ values, result }) =>
          withDatabase(async (db) => {
            const email = str(values, 'email')!;
            const given = str(values, 'password');
            const existing = await findHumanByEmail(db, email);
            if (existing) {
              await makePlatformAdmin(db, existing.id);
              if (given) await setPassword(db, existing.id, given);
              result(
                {
                  principal_id: existing.id,
                  email: existing.identifier,
                  created: false,
                  password_updated: Boolean(given),
                },
                [
                  `${existing.identifier} is now a platform admin (principal ${existing.id})${given ? '; password updated' : ''}`,
                ],
              );
              return;
            }
            const generated = given ? undefined : randomToken(18);
            const human = await createHuman(db, {
              email,
              password: given ?? generated!,
              displayName: str(values, 'name'),
              isPlatformAdmin: true,
              emailVerified: true,
            });
            result(
              {
                principal_id: human.id,
                email: human.identifier,
                created: true,
                ...(generated ? { password: generated } : {}),
              },
              [
                `created platform admin ${human.identifier} (principal ${human.id})`,
                ...(generated ? [`password (shown once): ${generated}`] : []),
              ],
            );
          }),
      },
      {
        path: ['apps', 'create'],
        synopsis:
          '--name NAME [--type web|spa|native|machine|service] [--redirect-uri URI ...] [--scope SCOPE ...] [--first-party] [--resource-server] [--dpop] [--client-id ID]',
        summary: "register an OAuth app; a confidential app's first client secret is shown once",
        details: [
          '--type           web (default), spa, native, machine or service',
          '--redirect-uri   where authorization codes may be sent (repeatable; web, spa and native apps)',
          '--scope          scopes the app may ask for (repeatable, or space/comma separated)',
          "--first-party    the platform's own app: no consent screen",
          '--resource-server may introspect tokens issued to other apps',
          '--dpop           every token request must carry a DPoP proof (RFC 9449): tokens bound to a key',
          '--client-id      a chosen client_id instead of a generated one',
        ],
        exports: (app: { id?: string; client_id?: string; client_secret?: string }) => ({
          APP_ID: app.id,
          CLIENT_ID: app.client_id,
          CLIENT_SECRET: app.client_secret,
        }),
        options: {
          name: { type: 'string' },
          type: { type: 'string' },
          'redirect-uri': { type: 'string', multiple: true },
          scope: { type: 'string', multiple: true },
          'first-party': { type: 'boolean' },
          'resource-server': { type: 'boolean' },
          dpop: { type: 'boolean' },
          'client-id': { type: 'string' },
        },
        required: ['name'],
        run: ({ values, result }) => {
          const type = str(values, 'type');
          if (type && !APP_TYPES.includes(type as AppType))
            throw new UsageError(`--type must be one of ${APP_TYPES.join(', ')}`);
          return withDatabase(async (db) => {
            const app = await createApp(
              db,
              {
                name: str(values, 'name')!,
                appType: type as AppType | undefined,
                redirectUris: strs(values, 'redirect-uri'),
                allowedScopes: strs(values, 'scope')?.flatMap((s) => s.split(/[ ,]+/).filter(Boolean)),
                firstParty: flag(values, 'first-party'),
                resourceServer: flag(values, 'resource-server'),
                dpopBoundAccessTokens: flag(values, 'dpop'),
                clientId: str(values, 'client-id'),
              },
              [...BUILT_IN_SCOPES, ...config.extraScopes],
            );
            const secret = app.public ? undefined : (await createSecret(db, app.id)).secret;
            result(
              {
                id: app.id,
                client_id: app.clientId,
                ...(secret ? { client_secret: secret } : {}),
                type: app.appType,
                grants: app.allowedGrants,
                scopes: app.allowedScopes,
                resource_server: app.resourceServer,
                dpop_bound_access_tokens: app.dpopBoundAccessTokens,
              },
              [
                `client_id: ${app.clientId}`,
                `app id: ${app.id}  type: ${app.appType}  grants: ${app.allowedGrants.join(' ')}  scopes: ${app.allowedScopes.join(' ') || '(none)'}`,
                ...(app.resourceServer ? ['resource server: may introspect tokens issued to other apps'] : []),
                ...(app.dpopBoundAccessTokens ? ['DPoP required: every token request must carry a DPoP proof'] : []),
                ...(secret ? [`client_secret (shown once): ${secret}`] : []),
              ],
            );
          });
        },
      },
      ...agentCommands(withDatabase, [...BUILT_IN_SCOPES, ...(config.extraScopes ?? [])]),
      {
        path: ['keys', 'rotate'],
        synopsis: '',
        summary: 'new signing key signs from now on; the old one stays in the JWKS until what it signed expires',
        run: ({ result }) =>
          withDatabase(async (db) => {
            const r = await rotateSigningKeys(db, config.secretKey);
            result({ kid: r.kid, retired: r.retired }, [
              `new signing key ${r.kid}${r.retired.length ? `; retired ${r.retired.join(', ')} (published until what they signed expires)` : ''}`,
              'running servers pick it up within IDENTITY_KEY_REFRESH_SECONDS',
            ]);
          }),
      },
      ...mfaCommands(withDatabase),
      ...marketplaceCommands(withDatabase),
      ...billingCommands(withDatabase),
    ],
  };
}

/** One line per command for `platform help` (no configuration needed to list them). */
export const IDENTITY_USAGE = usageLines(identityCommands({} as IdentityConfig));

export function identityCommand(args: string[], config: IdentityConfig, io: CommandIO): Promise<number> {
  return runCommand(identityCommands(config), args, io);
}
