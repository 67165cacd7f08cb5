import { CommandFailure, apiKeyLine, str, type Command } from '../cli-runner.ts';
import type { Database } from '../db.ts';
import { announceInvalidation } from '../invalidation.ts';
import type { CommandIO } from '../service.ts';
import { API_KEY_CACHE, apiKeyCacheVariableName } from './lookup.ts';
import { ApiKeyInputError, type ApiKeyRecord, type ApiKeyTable, type KeyRevoked } from './table.ts';

export interface ApiKeyCommandsOptions<R extends ApiKeyRecord> {
  /** `platform <service> keys …`; also names the Redis channel its instances hear revocations on. */
  service: string;
  table: ApiKeyTable<R>;
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>;
  /** The shell variables `keys create --export` sets: the key's id and the key. */
  exports: { id: string; key: string };
  /** When the table's keys belong to something: the argument naming it (`PROJECT`) and what it is (`project`). */
  owner?: { argument: string; noun: string };
  redisUrl: string | undefined;
  /** How long this configuration's instances keep a key's lookup (`<SERVICE>_KEY_CACHE_SECONDS`). */
  cacheSeconds: number;
}

/**
 * `keys create [OWNER] [--name NAME] [--json|--export]`, `keys list [OWNER]` and `keys revoke KEY_ID`, straight
 * against the service's database. A revocation is announced over Redis to the running instances, so it holds at
 * once on all of them; without Redis they stop accepting the key when their cached lookup expires.
 */
export function apiKeyCommands<R extends ApiKeyRecord>(options: ApiKeyCommandsOptions<R>): Command[] {
  const { service, table, withDatabase, owner } = options;
  const ownerOf = (record: R) => (owner ? (record as unknown as Record<string, string>)[table.owner!.column] : '');
  const noSuchOwner = (id: string) => new CommandFailure(`no ${owner!.noun} ${id}`);
  const ownerPositional = owner ? { positionals: { min: 1, max: 1 } } : {};
  return [
    {
      path: ['keys', 'create'],
      synopsis: [owner?.argument, '[--name NAME]'].filter(Boolean).join(' '),
      summary: `create an API key ${owner ? `for a ${owner.noun}` : `for the ${service} API`} (shown once)`,
      options: { name: { type: 'string' } },
      exports: (key: { id?: string; key?: string }) => ({
        [options.exports.id]: key.id,
        [options.exports.key]: key.key,
      }),
      ...ownerPositional,
      run: ({ values, positionals, result, json, io }) =>
        withDatabase(async (db) => {
          const created = await table
            .create(db, { name: str(values, 'name'), owner: positionals[0] })
            .catch((err: unknown) => {
              throw err instanceof ApiKeyInputError ? new CommandFailure(err.message) : err;
            });
          if (!created) throw noSuchOwner(positionals[0]!);
          const { key, record } = created;
          const about = owner ? ` for ${owner.noun} ${ownerOf(record)}` : record.name ? ` (${record.name})` : '';
          result({ ...record, key }, [`created key ${record.id}${about}`, key]);
          if (!json) io.err('store this key now: it is not kept and cannot be shown again');
        }),
    },
    {
      path: ['keys', 'list'],
      synopsis: owner?.argument ?? '',
      summary: `list ${owner ? `a ${owner.noun}'s ` : ''}API keys (never the keys themselves)`,
      ...ownerPositional,
      run: ({ positionals, result }) =>
        withDatabase(async (db) => {
          if (owner && !(await table.ownerExists(db, positionals[0]!))) throw noSuchOwner(positionals[0]!);
          const keys = (await table.list(db, { owner: positionals[0] })).map(({ position: _, ...key }) => key);
          result({ items: keys }, keys.map(apiKeyLine));
        }),
    },
    {
      path: ['keys', 'revoke'],
      synopsis: 'KEY_ID',
      summary: 'revoke an API key',
      positionals: { min: 1, max: 1 },
      run: ({ positionals, result, io }) =>
        withDatabase(async (db) => {
          const id = positionals[0]!;
          let announced = false;
          const revoked: KeyRevoked = async (hash) => {
            announced = await announce(options, hash, io);
          };
          const record = await table.revoke(db, id, { revoked });
          if (!record) throw new CommandFailure(`no key ${id}`);
          const of = owner ? ` of ${owner.noun} ${ownerOf(record)}` : '';
          const later =
            !announced && options.cacheSeconds > 0
              ? ` (running services stop accepting it within ${apiKeyCacheVariableName(service)})`
              : '';
          result(record, [`revoked key ${record.id}${of}${later}`]);
        }),
    },
  ];
}

/** Tells the running instances to drop the key's cached lookup; whether they were told. */
async function announce(
  options: { service: string; redisUrl: string | undefined },
  keyHash: string,
  io: CommandIO,
): Promise<boolean> {
  if (!options.redisUrl) return false;
  try {
    await announceInvalidation({
      redisUrl: options.redisUrl,
      service: options.service,
      cache: API_KEY_CACHE,
      key: keyHash,
    });
    return true;
  } catch (err) {
    io.err(
      `platform ${options.service} keys revoke: the key is revoked, but running instances could not be told at once: ${(err as Error).message}`,
    );
    return false;
  }
}
