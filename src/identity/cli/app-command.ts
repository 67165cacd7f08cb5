import { UsageError, flag, str, strs, type Command } from '../../kit/cli-runner.ts';
import { BUILT_IN_SCOPES, type IdentityConfig } from '../config.ts';
import { createApp, createSecret } from '../apps/store.ts';
import { APP_TYPES, type AppType } from '../apps/record.ts';
import type { WithDatabase } from './with-database.ts';

/** `platform identity apps create`: an OAuth app; a confidential app's first secret is printed once. */
export function createAppCommand(withDatabase: WithDatabase, config: IdentityConfig): Command {
  return {
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
  };
}
