import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, TEST_POSTGRES_URL, type FreshDatabase } from './postgres.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';
import { tempDir } from './tmp.ts';

export interface StormTarget {
  service: ServiceProcess;
  database: FreshDatabase;
  /** The environment the service was started with (for its CLI commands too). */
  env: Record<string, string>;
  /** Stops the service and removes its database and data folder. */
  close(): Promise<void>;
}

/** `platform start <service>` on a fresh PostgreSQL database of its own, with `env` besides DATA_DIR and the secret key. */
export async function startStormTarget(
  service: string,
  env: (databaseUrl: string) => Record<string, string>,
): Promise<StormTarget> {
  const database = await freshPostgres(`${service}storm`);
  const dataDir = tempDir();
  const fullEnv = { DATA_DIR: dataDir.path, PLATFORM_SECRET_KEY: 'd'.repeat(64), ...env(database.url) };
  try {
    const running = await startServiceProcess(service, fullEnv);
    return {
      service: running,
      database,
      env: fullEnv,
      async close() {
        await running.stop();
        await database.drop();
        dataDir.remove();
      },
    };
  } catch (err) {
    await database.drop();
    dataDir.remove();
    throw err;
  }
}

export interface BackendStormOptions {
  /** The running service, started with `startServiceProcess`. */
  service: ServiceProcess;
  /** The database the service uses: every backend connected to it is terminated, over and over. */
  databaseUrl: string;
  /** One request of the service's ordinary load (a fresh one per call). */
  request: () => Promise<Response>;
  /** Whether an answer is the ordinary success (e.g. 200, 202). */
  normal: (res: Response) => boolean;
  /** Request loops running at once. */
  workers?: number;
  /** How long backends keep being terminated. */
  durationMs?: number;
  /** Pause between two rounds of terminations. */
  intervalMs?: number;
}

export interface BackendStormResult {
  normal: number;
  unavailable: number;
  terminated: number;
}

/**
 * Runs the service's load while every backend of its database is terminated again and again
 * (`pg_terminate_backend`, as a server restart or a failover does), then asserts what must hold:
 * the process survives; meanwhile every answer is either the ordinary one or 503 with Retry-After
 * (never a 500, never a dropped connection); afterwards the service is ready again on its own and
 * serves normally.
 */
export async function assertSurvivesBackendStorm(options: BackendStormOptions): Promise<BackendStormResult> {
  const { service, request, normal } = options;
  const database = new URL(options.databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  const result: BackendStormResult = { normal: 0, unavailable: 0, terminated: 0 };
  const wrong: string[] = [];
  let storming = true;
  try {
    const classify = async (res: Response) => {
      const body = await res.text();
      if (normal(res)) result.normal++;
      else if (res.status === 503 && /^[1-9]\d*$/.test(res.headers.get('retry-after') ?? '')) result.unavailable++;
      else wrong.push(`${res.status} retry-after=${res.headers.get('retry-after')} ${body.slice(0, 200)}`);
    };
    const worker = async () => {
      while (storming) {
        try {
          await classify(await request());
        } catch (err) {
          wrong.push(`no answer: ${(err as Error).message} ${(err as Error).cause ?? ''}`);
        }
      }
    };
    const storm = async () => {
      const until = Date.now() + (options.durationMs ?? 3_000);
      while (Date.now() < until) {
        const r = await admin.query<{ n: number }>(
          'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        result.terminated += r.rows[0]!.n;
        await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
      }
      storming = false;
    };
    await Promise.all([storm(), ...Array.from({ length: options.workers ?? 8 }, worker)]);
  } finally {
    storming = false;
    await admin.end();
  }

  assert.ok(service.alive(), `the service process died during the storm: ${service.stderr().slice(-2000)}`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} answers were neither ordinary nor 503 with Retry-After`);
  assert.ok(result.terminated > 0, 'the storm terminated backends of the service');
  assert.ok(result.normal + result.unavailable > 0, 'requests were answered during the storm');

  // Recovery: ready again without help, then every request of a burst served normally.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await fetch(`${service.url}/ready`).catch(() => undefined);
    if (ready?.status === 200) break;
    assert.ok(Date.now() < deadline, `not ready 15 s after the storm: ${ready?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const after = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const res = await request();
      const body = await res.text();
      return normal(res) ? 'ok' : `${res.status} ${body.slice(0, 200)}`;
    }),
  );
  assert.deepEqual(
    after.filter((a) => a !== 'ok'),
    [],
    'after the storm every request is served normally',
  );
  assert.ok(service.alive());
  const metrics = await (await fetch(`${service.url}/metrics`)).text();
  const lost = Number(/^db_pool_connections_lost_total (\d+)$/m.exec(metrics)?.[1]);
  assert.ok(lost > 0, `/metrics counts the dropped connections (${lost})`);
  assert.match(metrics, /^http_requests_total\{[^}]*status="503"\} [1-9]/m, '/metrics counts the 503 answers');
  return result;
}
