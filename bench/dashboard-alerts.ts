/**
 * Alert evaluation benchmark: 1,000 alert rules on a real PostgreSQL data source, evaluated by one dashboard
 * instance's scheduler (its default concurrency, leases and commits) in cycles: every rule is made due at once and
 * the cycle ends when each has been evaluated. Cycle 1 changes every rule's state (ok → firing: a history row each);
 * the later cycles find nothing changed (the steady state). Printed per cycle: wall time, rules/s, the statements
 * the service database committed (transactions, rows read and written) and the data source's, the CPU seconds of
 * this process (the service) and of PostgreSQL, and the load average.
 *
 *   node bench/dashboard-alerts.ts      (BENCH_RULES=1000, BENCH_CYCLES=3, BENCH_QUERIES=100 saved queries)
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { postgresCpuSeconds, postgresCpuSince } from './support/proc.ts';

const RULES = Number(process.env.BENCH_RULES ?? 1000);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 3);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100);
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function database(label: string): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

interface DbStats {
  xact_commit: number;
  tup_returned: number;
  tup_fetched: number;
  tup_inserted: number;
  tup_updated: number;
  blks_read: number;
}

async function stats(c: pg.Client, name: string): Promise<DbStats> {
  // The statistics collector's view lags; a snapshot is cleared so each read is current.
  await c.query('SELECT pg_stat_clear_snapshot()');
  const r = await c.query(
    `SELECT xact_commit::float8, tup_returned::float8, tup_fetched::float8, tup_inserted::float8, tup_updated::float8,
            blks_read::float8 FROM pg_stat_database WHERE datname = $1`,
    [name],
  );
  return r.rows[0];
}

const minus = (a: DbStats, b: DbStats) =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - b[k as keyof DbStats]])) as unknown as DbStats;

async function main(): Promise<void> {
  const service = await database('alerts');
  const data = await database('alertsdata');
  const seed = new pg.Client({ connectionString: data.url });
  await seed.connect();
  await seed.query(`CREATE TABLE metric (id int PRIMARY KEY, v numeric NOT NULL);
    INSERT INTO metric SELECT g, g % 97 FROM generate_series(1, ${QUERIES}) g; ANALYZE metric;`);
  await seed.end();

  const { buildDashboardApp } = await import('../src/dashboard/app.ts');
  const { loadDashboardConfig } = await import('../src/dashboard/config.ts');
  const { dashboardCommand } = await import('../src/dashboard/cli.ts');
  const config = loadDashboardConfig({
    DASHBOARD_DATABASE_URL: service.url,
    LOG_LEVEL: 'warn',
    DATA_DIR: `/tmp/dashboard-alerts-bench-${process.pid}`,
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DASHBOARD_JWT_SECRET: randomBytes(32).toString('base64url'),
    DASHBOARD_SCHEDULER_TICK_MS: '50',
  });
  const app = await buildDashboardApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const out: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => console.error(l) };
  await dashboardCommand(
    ['tenants', 'create', '--slug', 'bench', '--name', 'Bench', '--plan', 'enterprise'],
    config,
    io,
  );
  await dashboardCommand(
    ['users', 'create', '--tenant', 'bench', '--email', 'admin@bench.example', '--name', 'Bench', '--role', 'admin'],
    config,
    io,
  );
  await dashboardCommand(['token', '--tenant', 'bench', '--email', 'admin@bench.example'], config, io);
  const headers = { authorization: `Bearer ${JSON.parse(out[out.length - 1]!).accessToken}` };
  const ds = await app.inject({
    method: 'POST',
    url: '/api/v1/datasources',
    headers,
    payload: { name: 'Bench', slug: 'bench', type: 'postgres', connectionUrl: data.url },
  });
  const queryIds: number[] = [];
  for (let i = 1; i <= QUERIES; i++) {
    const q = await app.inject({
      method: 'POST',
      url: '/api/v1/queries',
      headers,
      payload: { name: `Metric ${i}`, dataSourceId: ds.json().id, query: `SELECT v FROM metric WHERE id = ${i}` },
    });
    queryIds.push(q.json().id);
  }
  const c = new pg.Client({ connectionString: service.url, options: '-c search_path=dashboard' });
  await c.connect();
  // The rules are written directly (the API would make them one by one): disabled until the first cycle.
  await c.query(
    `INSERT INTO alert_rules (tenant_id, owner_id, name, saved_query_id, condition_op, threshold, interval_minutes, enabled)
     SELECT t.id, u.id, 'rule ' || g, ($1::bigint[])[1 + g % $2], 'above', -1, 5, false
       FROM generate_series(1, $3) g, tenants t, users u WHERE t.slug = 'bench' AND u.email = 'admin@bench.example'`,
    [queryIds, QUERIES, RULES],
  );

  console.log(
    `alert evaluation: ${RULES} rules over ${QUERIES} saved queries, one instance, concurrency 16, ${CYCLES} cycles`,
  );
  console.log(
    'cycle | wall s | rules/s | service DB: commits / rows read / rows written | data DB: commits / rows read | CPU s: service / PostgreSQL | load avg',
  );
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const before = { service: await stats(c, service.name), data: await stats(c, data.name) };
    const pgCpu = postgresCpuSeconds();
    const cpu = process.cpuUsage();
    const load = loadavg()[0]!.toFixed(1);
    const started = performance.now();
    await c.query(`UPDATE alert_rules SET enabled = true, next_eval_at = now()`);
    // The end of the cycle is read from the rules themselves every 100 ms: each look reads every rule, and is taken
    // out of the service database's figures below (one commit and RULES rows read per look).
    let looks = 0;
    for (;;) {
      looks++;
      const r = await c.query(`SELECT count(*)::int AS n FROM alert_rules WHERE evaluations >= $1`, [cycle]);
      if (r.rows[0].n >= RULES) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const wall = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const pgSeconds = postgresCpuSince(pgCpu);
    const s = minus(await stats(c, service.name), before.service);
    s.xact_commit -= looks + 3;
    s.tup_returned -= looks * RULES;
    const d = minus(await stats(c, data.name), before.data);
    console.log(
      [
        cycle,
        wall.toFixed(2),
        Math.round(RULES / wall),
        `${s.xact_commit} / ${s.tup_returned + s.tup_fetched} / ${s.tup_inserted + s.tup_updated}`,
        `${d.xact_commit} / ${d.tup_returned + d.tup_fetched}`,
        `${((used.user + used.system) / 1e6).toFixed(1)} / ${pgSeconds.toFixed(1)}`,
        load,
      ].join(' | '),
    );
    console.log(
      `      per rule: ${(s.xact_commit / RULES).toFixed(1)} service commits, ${(d.xact_commit / RULES).toFixed(1)} data source commits`,
    );
  }
  const history = await c.query('SELECT count(*)::int AS n FROM alert_state_history');
  console.log(`state history rows: ${history.rows[0].n} (cycle 1 changed every rule; later cycles none)`);
  await c.end();
  await app.close();
  await service.drop();
  await data.drop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
