import { defineService } from '../kit/service.ts';
import { IDENTITY_PORT, identitySpec, loadIdentityConfig } from './config.ts';

/**
 * The service's code is imported when it is started or one of its commands runs, not when the `platform` command
 * loads its list of services: a process running one service then holds only that one's modules (about 50 MB less
 * heap for `platform start ingest` than with all four, which every major GC of the process had to mark).
 */
const app = () => import('./app.ts');
const cli = () => import('./cli/command.ts');

export const identityService = defineService({
  name: 'identity',
  description: 'OAuth 2.0 / OpenID Connect server and identity records',
  defaultPort: IDENTITY_PORT,
  spec: identitySpec,
  loadConfig: loadIdentityConfig,
  address: (c) => ({ host: c.host, port: c.port }),
  buildApp: async (config) => (await app()).buildIdentityApp(config),
  openDatabase: async (config) => (await app()).openIdentityDatabase(config),
  // The folder app.ts names too; given here so that listing migrations does not load the service's code.
  migrations: new URL('./migrations/', import.meta.url),
  command: async (args, config, io) => (await cli()).identityCommand(args, config, io),
  usage: async () => (await cli()).IDENTITY_USAGE,
});
