import { int, oneOf, optionalUrl, str, key256, type Variable } from './config.ts';
import type { LogLevel } from './logger.ts';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LogLevel[];
const PG = ['postgres:', 'postgresql:'] as const;

/** The variables every service reads, with the service's name in those that differ per service. */
export function commonVariables(service: string, defaultPort: number) {
  const prefix = service.toUpperCase();
  return {
    host: str('HOST', { default: '127.0.0.1', doc: 'Address every service listens on; `0.0.0.0` to accept connections from other machines.' }),
    port: int(`${prefix}_PORT`, { default: defaultPort, min: 0, max: 65535, doc: `Port of the ${service} service.` }),
    serviceDatabaseUrl: optionalUrl(`${prefix}_DATABASE_URL`, PG, { doc: `PostgreSQL URL for the ${service} service only; overrides DATABASE_URL.`, secret: true }),
    databaseUrl: optionalUrl('DATABASE_URL', PG, { doc: 'PostgreSQL URL shared by every service (each keeps its tables in its own schema). Unset: embedded PGlite under DATA_DIR.', secret: true }),
    dataDir: str('DATA_DIR', { default: './data', doc: 'Folder of the embedded databases (`<DATA_DIR>/<service>`) and the generated development secret key.' }),
    redisUrl: optionalUrl('REDIS_URL', ['redis:', 'rediss:'], {
      doc: 'Redis for limits that must hold across instances (sign-in throttling, rate limits). Unset: each instance keeps its own counts in memory.',
      secret: true,
    }),
    logLevel: oneOf('LOG_LEVEL', LEVELS, { default: 'info', doc: 'pino log level.' }),
    secretKey: key256('PLATFORM_SECRET_KEY', {
      default: () => Buffer.alloc(0),
      doc: 'AES-256-GCM key for secrets kept at rest (64 hex characters or 32 bytes in base64). Required when NODE_ENV=production; otherwise generated once into `<DATA_DIR>/secret.key`.',
    }),
  } satisfies Record<string, Variable<unknown>>;
}

export interface StorageConfig {
  serviceDatabaseUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
}

export function databaseUrlOf(config: StorageConfig): string | undefined {
  return config.serviceDatabaseUrl ?? config.databaseUrl;
}
