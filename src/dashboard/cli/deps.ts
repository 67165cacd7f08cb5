import type { Database } from '../../kit/db.ts';
import { CommandFailure } from '../../kit/cli-runner.ts';
import type { DashboardConfig } from '../config.ts';
import { findTenantBySlug, type Tenant } from '../tenants/store.ts';

/** What every `platform dashboard` command gets: the configuration and the service's database for one command. */
export interface CommandDeps {
  config: DashboardConfig;
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>;
}

export async function tenantBySlug(db: Database, slug: string): Promise<Tenant> {
  const t = await findTenantBySlug(db, slug);
  if (!t) throw new CommandFailure(`no tenant with slug "${slug}"`);
  return t;
}
