import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../kit/db.ts';
import type { DashboardConfig } from './config.ts';
import type { TokenSettings } from './auth/sessions.ts';
import type { SqlRunner } from './sql/runner.ts';

/** What every feature's routes receive from buildDashboardApp. */
export interface DashboardContext {
  db: Database;
  config: DashboardConfig;
  /** The platform key (AES-256-GCM) for secrets at rest: `seal`/`openSealed` from src/kit/crypto.ts. */
  secretKey: Buffer;
  tokens: TokenSettings;
  log: FastifyBaseLogger;
  /** Runs SQL on the tenants' data sources (src/dashboard/sql). */
  sql: SqlRunner;
}
