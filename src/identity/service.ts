import { defineService } from '../kit/service.ts';
import { IDENTITY_PORT, identitySpec, loadIdentityConfig } from './config.ts';
import { MIGRATIONS, buildIdentityApp, openIdentityDatabase } from './app.ts';
import { IDENTITY_USAGE, identityCommand } from './cli/command.ts';

export const identityService = defineService({
  name: 'identity',
  description: 'OAuth 2.0 / OpenID Connect server and identity records',
  defaultPort: IDENTITY_PORT,
  spec: identitySpec,
  loadConfig: loadIdentityConfig,
  address: (c) => ({ host: c.host, port: c.port }),
  buildApp: buildIdentityApp,
  openDatabase: openIdentityDatabase,
  migrations: MIGRATIONS,
  command: identityCommand,
  usage: IDENTITY_USAGE,
});
