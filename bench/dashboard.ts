/**
 * Dashboard service benchmark. The service runs on real PostgreSQL in its own process (`platform start
 * dashboard`); a separate load process drives it over keep-alive connections and prints its figures.
 *
 * Part "dashboards": authenticated `GET /api/v1/dashboards` over 100,000 dashboards of one tenant —
 * plain pages, and searches over title and description — in requests per second with p50/p99, and the
 * server's peak RSS.
 *
 *   npm run bench:dashboard   (BENCH_SECONDS=15 BENCH_CONNECTIONS=8 BENCH_DASHBOARDS=100000 BENCH_POSTGRES_URL=postgres://...)
 * Part "query": POST /api/v1/datasources/:id/query answering 10,000 rows of 10 mixed columns from real
 * PostgreSQL against a bare pg call plus JSON.stringify, alternating; see bench/dashboard-query.ts (it starts its
 * own service and databases, and runs alone too: `node bench/dashboard-query.ts`).
 *
 *   BENCH_PARTS=dashboards    to run only some parts (comma-separated: dashboards, query)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Connection, percentile } from './support/connection.ts';
import { queryBenchmark } from './dashboard-query.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const DASHBOARDS = Number(process.env.BENCH_DASHBOARDS ?? 100_000);
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PARTS = (process.env.BENCH_PARTS ?? 'dashboards,query').split(',').map((p) => p.trim());

export interface LoadResult {
  requests: number;
  failures: number;
  statuses: Record<string, number>;
  latencies: number[];
  seconds: number;
}

/** What every part gets: the running service, a token of an enterprise owner, the database, and a way to measure. */
export interface BenchContext {
  url: string;
  token: string;
  tenantId: number;
  databaseUrl: string;
  serverPid: number;
  /** Runs the load process on `paths` (GET, round-robin per connection) and returns its figures. */
  measure(name: string, requests: { method: string; path: string; body?: unknown }[]): Promise<void>;
}

// ---------------------------------------------------------------- load process

function requestBytes(target: URL, token: string, r: { method: string; path: string; body?: unknown }): Buffer {
  const body = r.body === undefined ? '' : JSON.stringify(r.body);
  const head = [
    `${r.method} ${r.path} HTTP/1.1`,
    `host: ${target.host}`,
    `authorization: Bearer ${token}`,
    'connection: keep-alive',
    ...(body ? ['content-type: application/json', `content-length: ${Buffer.byteLength(body)}`] : []),
  ].join('\r\n');
  return Buffer.from(`${head}\r\n\r\n${body}`);
}

async function load(url: string, token: string, spec: string): Promise<void> {
  const target = new URL(url);
  const requests = (JSON.parse(spec) as { method: string; path: string; body?: unknown }[]).map((r) =>
    requestBytes(target, token, r),
  );
  const result: LoadResult = { requests: 0, failures: 0, statuses: {}, latencies: [], seconds: SECONDS };
  const warmupEnd = Date.now() + WARMUP_SECONDS * 1000;
  const end = warmupEnd + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      const conn = new Connection(target);
      let i = c;
      while (Date.now() < end) {
        const started = performance.now();
        const bytes = requests[i++ % requests.length]!;
        let status = 0;
        try {
          status = (await conn.request(bytes)).status;
        } catch {
          status = 0;
        }
        if (Date.now() < warmupEnd) continue;
        result.requests++;
        result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        if (status !== 200) result.failures++;
        result.latencies.push(performance.now() - started);
      }
      conn.close();
    }),
  );
  process.stdout.write(JSON.stringify(result));
}

// ---------------------------------------------------------------- orchestration

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['src/cli.ts', 'start', 'dashboard'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /dashboard\s+(http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => reject(new Error(`dashboard exited with ${code}: ${err}`)));
  });
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function peakRssMb(pid: number): number {
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** CPU seconds (user + system) used so far by a process. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function cli(env: NodeJS.ProcessEnv, args: string[]): string {
  const r = spawnSync(NODE, ['src/cli.ts', 'dashboard', ...args], { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`platform dashboard ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function runLoad(url: string, token: string, requests: unknown[]): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [SELF, 'load', url, token, JSON.stringify(requests)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load exited with ${code}`)),
    );
  });
}

const WORDS = [
  'sales',
  'revenue',
  'churn',
  'signups',
  'latency',
  'errors',
  'inventory',
  'orders',
  'refunds',
  'traffic',
  'funnel',
  'retention',
  'billing',
  'support',
  'marketing',
  'growth',
];
const REGIONS = ['EMEA', 'APAC', 'Americas', 'Nordics', 'DACH', 'Iberia', 'Benelux', 'Japan'];

/** 100,000 dashboards written straight into the tenant (the API path is not what this part measures). */
async function seedDashboards(databaseUrl: string, tenantId: number, userId: number): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const definition = JSON.stringify({
      layout: { type: 'grid', columns: 12, rowHeight: 30 },
      dataSources: [{ id: 1 }],
      widgets: [
        {
          id: 'w1',
          type: 'line',
          position: { x: 0, y: 0, w: 6, h: 4 },
          dataSourceId: 1,
          query: 'SELECT day, total FROM daily_sales',
        },
      ],
    });
    await c.query(
      `INSERT INTO dashboard.dashboards (tenant_id, slug, title, description, definition, created_by, updated_by, created_at, updated_at)
       SELECT $1, 'dash-' || g,
              initcap(($4::text[])[1 + g % 16]) || ' ' || ($4::text[])[1 + (g / 16) % 16] || ' — ' || ($5::text[])[1 + g % 8] || ' #' || g,
              CASE WHEN g % 3 = 0 THEN 'Weekly ' || ($4::text[])[1 + (g / 7) % 16] || ' review for team ' || (g % 97) ELSE NULL END,
              $2::jsonb, $3, $3, now() - make_interval(secs => g), now() - make_interval(secs => g / 2)
         FROM generate_series(1, $6) g`,
      [tenantId, definition, userId, WORDS, REGIONS, DASHBOARDS],
    );
    // What autovacuum would have done by the time a tenant has 100,000 dashboards.
    await c.query('VACUUM ANALYZE dashboard.dashboards');
  } finally {
    await c.end();
  }
}

async function dashboardsPart(ctx: BenchContext): Promise<void> {
  await ctx.measure('list, page 1 (20 newest)', [{ method: 'GET', path: '/api/v1/dashboards' }]);
  await ctx.measure(
    'list, pages 1-50 by title, 100 per page',
    Array.from({ length: 50 }, (_, i) => ({
      method: 'GET',
      path: `/api/v1/dashboards?sort=title&perPage=100&page=${i + 1}`,
    })),
  );
  await ctx.measure(
    'search (16 words, ~1/16 of rows match each)',
    WORDS.map((w) => ({ method: 'GET', path: `/api/v1/dashboards?search=${w}` })),
  );
  await ctx.measure(
    'search, narrow (a number: a few matches)',
    Array.from({ length: 50 }, (_, i) => ({ method: 'GET', path: `/api/v1/dashboards?search=%23${1000 + i * 997}` })),
  );
}

const parts: Record<string, (ctx: BenchContext) => Promise<void>> = {
  dashboards: dashboardsPart,
  query: () => queryBenchmark(),
};

async function main(): Promise<void> {
  const name = `bench_dash_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(POSTGRES);
  dbUrl.pathname = `/${name}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DASHBOARD_DATABASE_URL: dbUrl.href,
    DASHBOARD_PORT: '0',
    DATA_DIR: `/tmp/${name}`,
    LOG_LEVEL: 'warn',
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DASHBOARD_JWT_SECRET: randomBytes(32).toString('base64url'),
    // The benchmark measures the service, not the 1,000-a-minute limit of an enterprise tenant.
    DASHBOARD_RATE_LIMITS: 'enterprise=100000000',
  };
  let server: ChildProcess | undefined;
  try {
    cli(env, ['tenants', 'create', '--slug', 'bench', '--name', 'Bench', '--plan', 'enterprise']);
    const user = cli(env, [
      'users',
      'create',
      '--tenant',
      'bench',
      '--email',
      'owner@bench.example',
      '--name',
      'Owner',
      '--role',
      'owner',
    ]);
    const token = (
      JSON.parse(cli(env, ['token', '--tenant', 'bench', '--email', 'owner@bench.example'])) as { accessToken: string }
    ).accessToken;
    const tenantId = Number(
      /^tenant (\d+)/.exec(
        cli(env, ['tenants', 'list']).split('\n')[0]!.replace(/\t.*/, '').replace(/^/, 'tenant '),
      )![1],
    );
    const userId = Number(/^user (\d+)/.exec(user)![1]);
    const seedStart = performance.now();
    if (PARTS.includes('dashboards')) await seedDashboards(dbUrl.href, tenantId, userId);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const started = await startServer(env);
    server = started.child;
    console.log(
      `dashboard benchmark: ${CONNECTIONS} connections, ${SECONDS} s per measurement after ${WARMUP_SECONDS} s warm-up; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    if (PARTS.includes('dashboards'))
      console.log(`seeded ${DASHBOARDS.toLocaleString('en')} dashboards in ${seedSeconds.toFixed(1)} s`);
    const ctx: BenchContext = {
      url: started.url,
      token,
      tenantId,
      databaseUrl: dbUrl.href,
      serverPid: server.pid!,
      async measure(label, requests) {
        const cpuBefore = cpuSeconds(server!.pid!);
        const wallBefore = performance.now();
        const r = await runLoad(started.url, token, requests);
        // The server's CPU per request says what a request costs when the machine is shared (the warm-up included).
        const cpu = cpuSeconds(server!.pid!) - cpuBefore;
        const wall = (performance.now() - wallBefore) / 1000;
        const sorted = r.latencies.sort((a, b) => a - b);
        console.log(
          `  ${label.padEnd(48)} ${(r.requests / r.seconds).toFixed(0).padStart(6)} req/s  p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  failures ${r.failures}${r.failures ? ` ${JSON.stringify(r.statuses)}` : ''}  server CPU ${(cpu / wall).toFixed(2)} cores, ${((cpu * 1000) / (r.requests * (1 + WARMUP_SECONDS / SECONDS))).toFixed(2)} ms/request  peak RSS ${peakRssMb(server!.pid!).toFixed(0)} MB`,
        );
      },
    };
    for (const p of PARTS) {
      const part = parts[p];
      if (!part) throw new Error(`unknown part ${p}; known: ${Object.keys(parts).join(', ')}`);
      console.log(`part ${p}:`);
      await part(ctx);
    }
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await stopChild(server);
    const c = new pg.Client({ connectionString: POSTGRES });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
}

if (process.argv[2] === 'load') await load(process.argv[3]!, process.argv[4]!, process.argv[5]!);
else await main();
