import type { App } from '../../kit/app.ts';
import { API_CORS_HEADERS, API_CORS_METHODS, registerCors } from '../../kit/cors.ts';
import type { Database } from '../../kit/db.ts';
import type { IdentityConfig } from '../config.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { consoleRights, type ConsoleRight } from '../principals/console-rights.ts';
import { registerConsoleRights } from './rights-routes.ts';

/** The scopes identity knows because `platform start` linked it to the console: every right's scope. */
export function linkedScopes(config: IdentityConfig): string[] {
  return config.links?.consoleRights?.map((r) => r.scope) ?? [];
}

/**
 * The rights a person can be given: those `platform start` linked, else the default rights whose scope identity knows
 * (`admin` always; `audits` and `ingest:admin` once IDENTITY_EXTRA_SCOPES names them).
 */
export function rightsCatalog(config: IdentityConfig, known: readonly string[]): ConsoleRight[] {
  return config.links?.consoleRights ?? consoleRights().filter((r) => known.includes(r.scope));
}

/** What identity serves the console: the rights API, and CORS on `/api/v1` for the console's origin. */
export async function registerConsole(
  app: App,
  deps: { db: Database; accounts: PrincipalDirectory; config: IdentityConfig; scopes: readonly string[] },
): Promise<void> {
  const origins = [...new Set([...deps.config.corsOrigins, ...(deps.config.links?.corsOrigins ?? [])])];
  registerCors(app, { origins, methods: API_CORS_METHODS, headers: API_CORS_HEADERS, prefix: '/api/v1/' });
  await registerConsoleRights(app, {
    db: deps.db,
    accounts: deps.accounts,
    catalog: rightsCatalog(deps.config, deps.scopes),
  });
}
