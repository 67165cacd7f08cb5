import { UsageError, flag, str, strs, type Command } from '../../kit/cli-runner.ts';
import { BUILT_IN_SCOPES, type IdentityConfig } from '../config.ts';
import { createApp, createSecret } from '../apps/store.ts';
import { APP_TYPES, type AppType } from '../apps/record.ts';
import { recordAsRequest } from '../admin-log/command-record.ts';
import type { WithDatabase } from './with-database.ts';

/**
 * `platform identity apps create`: an OAuth app; a confidential app's first secret is printed once. The app, its secret
 * and its `application.create` record (actor `command`, the secret never) are one transaction.
 */
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
      'recorded in the change log (GET /api/v1/admin-log) with the actor "command", the secret never',
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
      // What POST /api/v1/applications would be sent for the same app: what the change log keeps.
      const body = {
        name: str(values, 'name')!,
        app_type: type as AppType | undefined,
        redirect_uris: strs(values, 'redirect-uri'),
        allowed_scopes: strs(values, 'scope')?.flatMap((s) => s.split(/[ ,]+/).filter(Boolean)),
        first_party: flag(values, 'first-party') || undefined,
        resource_server: flag(values, 'resource-server') || undefined,
        dpop_bound_access_tokens: flag(values, 'dpop') || undefined,
        client_id: str(values, 'client-id'),
      };
      return withDatabase(async (db) => {
        let secret: string | undefined;
        const app = await createApp(
          db,
          {
            name: body.name,
            appType: body.app_type,
            redirectUris: body.redirect_uris,
            allowedScopes: body.allowed_scopes,
            firstParty: body.first_party,
            resourceServer: body.resource_server,
            dpopBoundAccessTokens: body.dpop_bound_access_tokens,
            clientId: body.client_id,
          },
          [...BUILT_IN_SCOPES, ...config.extraScopes],
          async (tx, made) => {
            secret = made.public ? undefined : (await createSecret(tx, made.id)).secret;
            await recordAsRequest(tx, { method: 'POST', route: '/applications', body, answer: { id: made.id } });
          },
        );
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
