import type { App } from '../../kit/app.ts';
import { createApiKeyLookup, type ApiKeyLookup } from '../../kit/api-keys/lookup.ts';
import { apiKeyTable } from '../../kit/api-keys/table.ts';
import type { Database } from '../../kit/db.ts';
import { openInvalidationBus } from '../../kit/invalidation.ts';

/**
 * The audit API's keys, `ak_<43 characters>` (src/kit/api-keys/), in audit's `api_keys`. A key made on the command
 * line belongs to no one: it is itself the caller, and the jobs it creates belong to `key:<id>`. A key a person made in
 * the console (`POST /api/v1/keys`) has that person as `owner` (`token:<subject>`): it speaks for them, so the runs a
 * CI job makes with it are among theirs.
 */
export const AUDIT_KEYS = apiKeyTable({ prefix: 'ak_', owner: { column: 'owner' } });

/**
 * The guard's key lookup. With `AUDIT_KEY_CACHE_SECONDS` above 0 live keys are cached, and revocations (by
 * `platform audit keys revoke`) reach the cache over REDIS_URL's invalidation bus; at 0, the default, every request
 * asks the database and no Redis connection is opened for it.
 */
export async function openAuditKeyLookup(
  app: App,
  db: Database,
  config: { redisUrl: string | undefined; keyCacheSeconds: number },
): Promise<ApiKeyLookup> {
  const bus =
    config.keyCacheSeconds > 0
      ? await openInvalidationBus({ redisUrl: config.redisUrl, service: 'audit', log: app.log })
      : undefined;
  if (bus) app.addHook('onClose', () => bus.close());
  return createApiKeyLookup({ db, table: AUDIT_KEYS, ttlSeconds: config.keyCacheSeconds, bus });
}
