import { CommandFailure, runCommand, usageLines, type CommandGroup } from '../kit/cli-runner.ts';
import { commandDatabase } from '../kit/service-config.ts';
import type { CommandIO } from '../kit/service.ts';
import { DASHBOARD_MIGRATIONS } from './app.ts';
import { provisionCommand } from './cli/provision.ts';
import { tenantsCreate, tenantsList } from './cli/tenants.ts';
import { token, usersCreate } from './cli/users.ts';
import type { DashboardConfig } from './config.ts';
import { TenantSlugTaken } from './tenants/store.ts';
import { EmailTaken } from './users/store.ts';

/** `platform dashboard ...`: tenants, users and tokens straight against the service's database (the operator's tools). */
function dashboardCommands(config: DashboardConfig): CommandGroup {
  const deps = { config, withDatabase: commandDatabase('dashboard', config, DASHBOARD_MIGRATIONS) };
  return {
    name: 'dashboard',
    classify: (err) =>
      err instanceof TenantSlugTaken || err instanceof EmailTaken ? new CommandFailure(err.message) : undefined,
    commands: [tenantsCreate(deps), tenantsList(deps), usersCreate(deps), provisionCommand(deps), token(deps)],
  };
}

/** One line per command for `platform help` (no configuration needed to list them). */
export const DASHBOARD_USAGE = usageLines(dashboardCommands({} as DashboardConfig));

export function dashboardCommand(args: string[], config: DashboardConfig, io: CommandIO): Promise<number> {
  return runCommand(dashboardCommands(config), args, io);
}
