import type { CommandIO } from '../../kit/service.ts';
import { HttpError } from '../../kit/errors.ts';
import { commandDatabase } from '../../kit/service-config.ts';
import { UsageError, runCommand, usageLines, type CommandGroup } from '../../kit/cli-runner.ts';
import { BUILT_IN_SCOPES, type IdentityConfig } from '../config.ts';
import { MIGRATIONS } from '../app.ts';
import { createAdminCommand } from './admin-command.ts';
import { createAppCommand } from './app-command.ts';
import { consoleRightsCommands } from './console-rights-command.ts';
import { rotateKeysCommand } from './keys-command.ts';
import { mfaCommands } from './mfa-command.ts';
import { agentCommands } from './agents-command.ts';
import { marketplaceCommands } from '../marketplace/cli.ts';
import { billingCommands } from '../billing/cli.ts';
import { scimCommands } from '../scim/cli.ts';

/** `platform identity ...`: principals, console rights, apps and keys, straight against the service's database. */
function identityCommands(config: IdentityConfig): CommandGroup {
  const withDatabase = commandDatabase('identity', config, MIGRATIONS);
  return {
    name: 'identity',
    // The stores validate input with HttpError 400 (a bad redirect URI, an unknown scope): the caller's mistake.
    classify: (err) => (err instanceof HttpError && err.statusCode < 500 ? new UsageError(err.message) : undefined),
    commands: [
      createAdminCommand(withDatabase, config),
      ...consoleRightsCommands(withDatabase, config),
      createAppCommand(withDatabase, config),
      ...agentCommands(withDatabase, [...BUILT_IN_SCOPES, ...(config.extraScopes ?? [])]),
      rotateKeysCommand(withDatabase, config),
      ...mfaCommands(withDatabase),
      ...marketplaceCommands(withDatabase),
      ...billingCommands(withDatabase),
      ...scimCommands(withDatabase, config.issuer),
    ],
  };
}

/** One line per command for `platform help` (no configuration needed to list them). */
export const IDENTITY_USAGE = usageLines(identityCommands({} as IdentityConfig));

export function identityCommand(args: string[], config: IdentityConfig, io: CommandIO): Promise<number> {
  return runCommand(identityCommands(config), args, io);
}
