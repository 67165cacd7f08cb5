import { int, oneOf, optionalUrl, readConfig, str, key256, type ConfigOf, type Spec, type Variable } from './config.ts';
import { openDatabase, type Database } from './db.ts';
import type { LogFormat, LogLevel } from './logger.ts';
import { migrate } from './migrations.ts';
import { resolveSecretKey } from './secret-key.ts';
import { databaseUrlOf, embeddedFolder, type StorageConfig } from './storage.ts';

export { databaseUrlOf, type StorageConfig };

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LogLevel[];
const FORMATS = ['auto', 'json', 'pretty'] as const satisfies readonly LogFormat[];
const PG = ['postgres:', 'postgresql:'] as const;

/** The variables every service reads, with the service's name in those that differ per service. */
export function commonVariables(service: string, defaultPort: number) {
  const prefix = service.toUpperCase();
  return {
    host: str('HOST', {
      default: '127.0.0.1',
      doc: 'Address every service listens on; `0.0.0.0` to accept connections from other machines.',
    }),
    port: int(`${prefix}_PORT`, { default: defaultPort, min: 0, max: 65535, doc: `Port of the ${service} service.` }),
    serviceDatabaseUrl: optionalUrl(`${prefix}_DATABASE_URL`, PG, {
      doc: `PostgreSQL URL for the ${service} service only; overrides DATABASE_URL.`,
      secret: true,
    }),
    databaseUrl: optionalUrl('DATABASE_URL', PG, {
      doc: 'PostgreSQL URL shared by every service (each keeps its tables in its own schema). Unset: embedded PGlite under DATA_DIR.',
      secret: true,
    }),
    dataDir: str('DATA_DIR', {
      default: './data',
      doc: 'Folder of the embedded databases (`<DATA_DIR>/<service>`) and the generated development secret key.',
    }),
    redisUrl: optionalUrl('REDIS_URL', ['redis:', 'rediss:'], {
      doc: 'Redis for limits that must hold across instances (sign-in throttling, rate limits, cache invalidation, seen DPoP proof ids). Unset: each instance keeps its own counts in memory.',
      secret: true,
    }),
    logLevel: oneOf('LOG_LEVEL', LEVELS, {
      default: 'info',
      doc: 'pino log level; requests are logged at debug, except 5xx answers and slow ones (over 1 s) at info.',
    }),
    logFormat: oneOf('LOG_FORMAT', FORMATS, {
      default: 'auto',
      doc: '`pretty`: one readable line per entry; `json`: pino JSON lines; `auto`: pretty when stdout is a terminal.',
    }),
    commandWait: int('PLATFORM_COMMAND_WAIT', {
      default: 60,
      min: 0,
      max: 3600,
      doc: 'Seconds a `platform <service> ...` command waits for an embedded data folder held by another process that does not take commands yet: a platform still starting, or another command.',
    }),
    secretKey: key256('PLATFORM_SECRET_KEY', {
      default: () => Buffer.alloc(0),
      doc: 'AES-256-GCM key for secrets kept at rest (64 hex characters or 32 bytes in base64). Required when NODE_ENV=production; otherwise generated once into `<DATA_DIR>/secret.key`.',
    }),
  } satisfies Record<string, Variable<unknown>>;
}

type CommonSpec = ReturnType<typeof commonVariables>;

/**
 * Reads a service's configuration and settles what depends on several variables, once, so the rest of
 * the service only reads values: the secret key is the configured one or the development key of
 * DATA_DIR (a ConfigError in production without one).
 */
export function readServiceConfig<S extends Spec & CommonSpec>(spec: S, env: NodeJS.ProcessEnv): ConfigOf<S> {
  const config = readConfig(spec, env);
  const secretKey = resolveSecretKey(config.secretKey as Buffer, config.dataDir as string, env);
  return { ...config, secretKey };
}

export interface ServiceDatabaseOptions {
  poolSize?: number;
  /** The service's migrations folder: pending migrations are applied before the database is returned. */
  migrations?: URL;
}

// The embedded databases this process holds open, by folder: a command run here (sent over the control socket by
// src/kit/control.ts while `platform start` runs) uses the service's open database, since no second one can open it.
const openHere = new Map<string, Database>();

/**
 * The one way a service opens its database: its own schema, named after it, on the configured PostgreSQL
 * server or in embedded PGlite under `DATA_DIR/<service>`; migrated when `migrations` is given, and
 * closed again if that fails so a failed start leaves no pool or lock behind.
 */
export async function openServiceDatabase(
  service: string,
  config: StorageConfig,
  options: ServiceDatabaseOptions = {},
): Promise<Database> {
  const folder = embeddedFolder(service, config);
  const db = await openDatabase({
    url: databaseUrlOf(config),
    dataDir: folder ?? '',
    schema: service,
    poolSize: options.poolSize,
    owner: service,
    migrations: options.migrations,
  });
  try {
    if (options.migrations) await migrate(db, options.migrations);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  if (folder) {
    openHere.set(folder, db);
    const close = db.close.bind(db);
    db.close = () => {
      if (openHere.get(folder) === db) openHere.delete(folder);
      return close();
    };
  }
  return db;
}

/**
 * What a service's CLI commands run on: `fn` gets the service's database, opened with a small pool and
 * migrated, and closed afterwards whatever happens (one such helper for every service's commands). When this
 * process already holds the service's embedded folder (the command came over the control socket), `fn` gets that
 * database, left open.
 */
export function commandDatabase(
  service: string,
  config: StorageConfig,
  migrations: URL,
): <T>(fn: (db: Database) => Promise<T>) => Promise<T> {
  return async (fn) => {
    const folder = embeddedFolder(service, config);
    const held = folder ? openHere.get(folder) : undefined;
    if (held) return fn(held);
    const db = await openServiceDatabase(service, config, { poolSize: 2, migrations });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };
}
