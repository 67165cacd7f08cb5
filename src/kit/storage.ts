import { join, resolve } from 'node:path';

/** Where a service keeps its data: a PostgreSQL server, or embedded PGlite under DATA_DIR. */
export interface StorageConfig {
  serviceDatabaseUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
}

export function databaseUrlOf(config: StorageConfig): string | undefined {
  return config.serviceDatabaseUrl ?? config.databaseUrl;
}

/** The folder of a service's embedded database; undefined when it is on PostgreSQL. */
export function embeddedFolder(service: string, config: StorageConfig): string | undefined {
  return databaseUrlOf(config) ? undefined : resolve(join(config.dataDir, service));
}
