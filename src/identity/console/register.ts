import type { App } from '../../kit/app.ts';
import { API_CORS_HEADERS, API_CORS_METHODS, registerCors } from '../../kit/cors.ts';
import type { Database } from '../../kit/db.ts';
import { BUILT_IN_SCOPES, type IdentityConfig } from '../config.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { consoleRights, type ConsoleRight } from '../principals/console-rights.ts';
import { registerConsoleRights } from './rights-routes.ts';

/**
 * Every scope identity knows: the built-in ones, IDENTITY_EXTRA_SCOPES, and every console right's scope when
 * `platform start` linked it to the console.
 */
export function knownScopes(config: IdentityConfig): string[] {
  const linked = config.links?.consoleRights?.map((r) => r.scope) ?? [];
  return [...new Set([...BUILT_IN_SCOPES, ...config.extraScopes, ...linked])];
}

/**
 * The rights a person can be given with this configuration: those `platform start` linked, else the default rights
 * whose scope identity knows (`admin` always; `audits` and `ingest:admin` once IDENTITY_EXTRA_SCOPES names them). The
 * rights API serves it, and `platform identity console-rights` reads it from the same configuration.
 */
export function consoleCatalog(config: IdentityConfig): ConsoleRight[] {
  const known = knownScopes(config);
  return config.links?.consoleRights ?? consoleRights().filter((r) => known.includes(r.scope));
}

/** What identity serves the console: the rights API, and CORS on `/api/v1` for the console's origin. */
export async function registerConsole(
  app: App,
  deps: { db: Database; accounts: PrincipalDirectory; config: IdentityConfig },
): Promise<void> {
  const origins = [...new Set([...deps.config.corsOrigins, ...(deps.config.links?.corsOrigins ?? [])])];
  registerCors(app, { origins, methods: API_CORS_METHODS, headers: API_CORS_HEADERS, prefix: '/api/v1/' });
  await registerConsoleRights(app, {
    db: deps.db,
    accounts: deps.accounts,
    catalog: consoleCatalog(deps.config),
  });
}
