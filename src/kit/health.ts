import { readdirSync } from 'node:fs';
import { PUBLIC } from './access.ts';
import { Type } from 'typebox';
import type { App } from './app.ts';
import type { Database } from './db.ts';
import { MIGRATION_FILE } from './migrations.ts';

/** One condition `/ready` requires besides the database; resolves true when met. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

export interface HealthOptions {
  db: Database;
  /** The service's migrations folder: ready only once every file in it is applied. */
  migrations: URL;
  /** The service's own conditions (a connection to Redis, a browser, ...). */
  checks?: ReadinessCheck[];
  /** When given, `/health` answers `{status, version}` (the audit service's contract) instead of `{status}`. */
  version?: string;
  /**
   * More for `/ready` to say beside `status` (ingest: how far storage is behind its log); read at each call, left out
   * when it fails or takes longer than a check may.
   */
  details?: () => Promise<Record<string, unknown>>;
}

/** How long one check may take before it counts as failed: a hung database reads as not ready. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * `/health` (liveness) answers without touching anything. `/ready` (readiness) answers 200 when the
 * database answers, every migration of this version is applied, and each of the service's own checks
 * passes; otherwise 503, with the failing checks logged once per change so a load balancer probing
 * every second does not fill the log.
 */
export function registerHealthRoutes(app: App, options: HealthOptions): void {
  const expected = readdirSync(options.migrations).filter((f) => MIGRATION_FILE.test(f));
  const checks: ReadinessCheck[] = [
    { name: 'database', check: async () => (await options.db.query('SELECT 1')).rowCount === 1 },
    { name: 'migrations', check: () => migrationsApplied(options.db, expected) },
    ...(options.checks ?? []),
  ];
  let lastFailing = '';

  const version = options.version;
  app.get(
    '/health',
    {
      config: { access: PUBLIC },
      schema: {
        summary: 'The process is alive',
        operationId: 'health',
        tags: ['operations'],
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.Optional(Type.String()) }) },
      },
    },
    async () => (version === undefined ? { status: 'ok' as const } : { status: 'ok' as const, version }),
  );

  app.get(
    '/ready',
    {
      config: { access: PUBLIC },
      schema: {
        summary: 'The service can serve: database reachable, migrations applied, its own checks met',
        operationId: 'ready',
        tags: ['operations'],
        response: {
          200: Type.Object({ status: Type.Literal('ready') }, { additionalProperties: true }),
          503: Type.Object({ status: Type.Literal('not ready') }, { additionalProperties: true }),
        },
      },
    },
    async (request, reply) => {
      const [results, details] = await Promise.all([
        Promise.all(checks.map(async (c) => ({ name: c.name, ok: await passes(c) }))),
        options.details ? withinCheckTime(options.details().catch(() => undefined)) : undefined,
      ]);
      const failing = results
        .filter((r) => !r.ok)
        .map((r) => r.name)
        .join(', ');
      if (failing !== lastFailing) {
        if (failing) request.log.warn({ failing }, 'not ready');
        else request.log.info('ready');
        lastFailing = failing;
      }
      if (!failing) return { ...details, status: 'ready' as const };
      return reply.code(503).send({ ...details, status: 'not ready' as const });
    },
  );
}

async function passes(c: ReadinessCheck): Promise<boolean> {
  return (await withinCheckTime(c.check().catch(() => false))) ?? false;
}

/** What `work` resolves to, or undefined after CHECK_TIMEOUT_MS. */
async function withinCheckTime<T>(work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function migrationsApplied(db: Database, expected: string[]): Promise<boolean> {
  const r = await db.query<{ name: string }>(`SELECT name FROM ${db.schema}.schema_migrations`);
  const done = new Set(r.rows.map((x) => x.name));
  return expected.every((f) => done.has(f));
}
