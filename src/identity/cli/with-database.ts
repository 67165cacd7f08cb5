import type { Database } from '../../kit/db.ts';

/** Runs a command's work on the service's database (kit/service-config.ts commandDatabase). */
export type WithDatabase = <T>(fn: (db: Database) => Promise<T>) => Promise<T>;
