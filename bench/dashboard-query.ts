/**
 * Dashboard query benchmark: POST /api/v1/datasources/:id/query answering 10,000 rows of 10 mixed columns from
 * a real PostgreSQL table, then one row of the same table, each against the same query through a bare `pg` call
 * plus JSON.stringify, in the same run. The service runs in a child process (its default configuration, a
 * read-only data source on the same server); this process sends one query at a time over a keep-alive connection
 * and runs the bare path itself, the paths alternating query by query. The bare path is the reference; a
 * second one, the same bare `pg` query and JSON.stringify behind a bare Fastify route in a child process of its own,
 * asked over a keep-alive connection of its own, shows what answering over HTTP at all costs; each child's CPU time
 * per one-row query is printed. Last, the one-row query runs
 * through a second data source that reaches PostgreSQL through a counting proxy (bench/support/pg-trips.ts): the
 * round trips the service makes to the source per query. The timed phases do not go through the proxy.
 *
 *   npm run bench:dashboard   (BENCH_QUERIES=40 after BENCH_WARMUP=8 per path for 10,000 rows;
 *                              BENCH_ONE_ROW_QUERIES=400 after BENCH_ONE_ROW_WARMUP=50 for one row)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { connect, type Socket } from 'node:net';
import { percentile } from './support/connection.ts';
import { countingProxy } from './support/pg-trips.ts';

const QUERIES = Number(process.env.BENCH_QUERIES ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 8);
const ONE_ROW_QUERIES = Number(process.env.BENCH_ONE_ROW_QUERIES ?? 400);
const ONE_ROW_WARMUP = Number(process.env.BENCH_ONE_ROW_WARMUP ?? 50);
const COUNTED_QUERIES = 50;
const ROWS = 10_000;

// Ten columns of the kinds dashboards read: integers, a bigint, an exact decimal, text of two lengths, a boolean,
// a timestamp with zone, a date, a float and a JSON object.
const SETUP = `
  CREATE TABLE sales (
    id integer PRIMARY KEY, account bigint NOT NULL, amount numeric(12,2) NOT NULL, region varchar(16) NOT NULL, note text,
    paid boolean NOT NULL, placed_at timestamptz NOT NULL, day date NOT NULL, score float8, meta jsonb
  );
  INSERT INTO sales
  SELECT g, 9000000000 + g, round((g * 7.31)::numeric % 10000, 2), (ARRAY['north','south','east','west'])[1 + g % 4],
         'order note number ' || g || ' with some words in it', g % 3 = 0, '2024-01-01T00:00:00Z'::timestamptz + g * interval '17 minutes',
         DATE '2024-01-01' + (g % 365), g / 7.0, jsonb_build_object('channel', 'web', 'items', g % 9)
    FROM generate_series(1, ${ROWS}) g;
  ANALYZE sales;`;
export const QUERY =
  'SELECT id, account, amount, region, note, paid, placed_at, day, score, meta FROM sales ORDER BY id';
export const ONE_ROW_QUERY =
  'SELECT id, account, amount, region, note, paid, placed_at, day, score, meta FROM sales WHERE id = 4242';

interface Ready {
  port: number;
  token: string;
  dataSourceId: number;
  /** The same database through the counting proxy. */
  countedSourceId: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function serve(serviceUrl: string, dataUrl: string, countedUrl: string): Promise<void> {
  const { buildDashboardApp } = await import('../src/dashboard/app.ts');
  const { loadDashboardConfig } = await import('../src/dashboard/config.ts');
  const { dashboardCommand } = await import('../src/dashboard/cli.ts');
  const port = await freePort();
  const config = loadDashboardConfig({
    DASHBOARD_DATABASE_URL: serviceUrl,
    LOG_LEVEL: 'warn',
    DATA_DIR: `/tmp/dashboard-bench-${process.pid}`,
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DASHBOARD_JWT_SECRET: randomBytes(32).toString('base64url'),
    // The limiter still counts every request (its cost is measured); the limit is high enough never to refuse one.
    DASHBOARD_RATE_LIMITS: 'enterprise=1000000',
  });
  const app = await buildDashboardApp(config);
  await app.listen({ host: '127.0.0.1', port });
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
  const token = JSON.parse(out[out.length - 1]!).accessToken as string;
  const source = async (slug: string, connectionUrl: string): Promise<number> => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/datasources',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: slug, slug, type: 'postgres', connectionUrl },
    });
    if (created.statusCode !== 201) throw new Error(`creating the data source: ${created.body}`);
    return created.json().id;
  };
  const dataSourceId = await source('bench', dataUrl);
  const countedSourceId = await source('counted', countedUrl);
  process.send!({ ready: { port, token, dataSourceId, countedSourceId } satisfies Ready });
  answerParent(() => app.close());
}

/** The child's side of the bench's messages: its CPU time so far, and stop (with its peak RSS). */
function answerParent(close: () => Promise<unknown>): void {
  process.on('message', async (m: { stop?: boolean; cpu?: boolean }) => {
    if (m.cpu) process.send!({ cpu: process.cpuUsage() });
    if (!m.stop) return;
    const maxRssKiB = process.resourceUsage().maxRSS;
    await close();
    process.send!({ stopped: { maxRssMiB: Math.round(maxRssKiB / 1024) } }, () => process.exit(0));
  });
}

/** The bare Fastify route in a process of its own, so each process's CPU time is one path's. */
async function serveBare(dataUrl: string): Promise<void> {
  const bare = await bareHttp(dataUrl);
  process.send!({ ready: { port: bare.port } });
  answerParent(() => bare.close());
}

/**
 * The HTTP reference: a Fastify app with nothing but one route that runs the posted query on one `pg` client and
 * answers JSON.stringify of the rows. No authentication, schema, audit or source session: what any HTTP API costs.
 */
async function bareHttp(dataUrl: string): Promise<{ port: number; close(): Promise<void> }> {
  const { default: Fastify } = await import('fastify');
  const client = new pg.Client({ connectionString: dataUrl });
  await client.connect();
  const app = Fastify();
  app.post('/query', async (request, reply) => {
    const { rows } = await client.query((request.body as { query: string }).query);
    return reply.type('application/json').send(JSON.stringify(rows));
  });
  const port = await freePort();
  await app.listen({ host: '127.0.0.1', port });
  return {
    port,
    async close() {
      await app.close();
      await client.end();
    },
  };
}

/**
 * One keep-alive connection for answers of megabytes: chunks are kept in a list and joined once the
 * Content-Length is reached (bench/support/connection.ts joins on every chunk, which costs more than the
 * service's own work at 2.5 MB per answer).
 */
class BigAnswerConnection {
  private readonly socket: Socket;
  private chunks: Buffer[] = [];
  private received = 0;
  private expected = -1;
  private headerLength = 0;
  private waiting: ((r: { status: number; body: string }) => void) | undefined;
  private failed: ((err: Error) => void) | undefined;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // One listener for the connection's life: one per request would pile up over hundreds of requests.
    this.socket.on('error', (err) => this.failed?.(err));
  }

  request(bytes: Buffer): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.expected < 0) {
      const head = Buffer.concat(this.chunks);
      this.chunks = [head];
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(head.toString('latin1', 0, end));
      if (!length) throw new Error('answer without content-length');
      this.headerLength = end + 4;
      this.expected = this.headerLength + Number(length[1]);
    }
    if (this.received < this.expected) return;
    const all = Buffer.concat(this.chunks);
    const status = Number(all.toString('latin1', 9, 12));
    const body = all.toString('utf8', this.headerLength, this.expected);
    this.chunks = [];
    this.received = 0;
    this.expected = -1;
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ status, body });
  }
}

interface Timing {
  mean: number;
  p50: number;
  p99: number;
  bytes: number;
}

function summarise(samples: number[], bytes: number): Timing {
  samples.sort((a, b) => a - b);
  return {
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    bytes,
  };
}

/**
 * Runs the paths alternately, one query each in turn, so all see the same machine: the cores are shared with other
 * work, and measuring one path after the other would compare different moments.
 */
async function timeAll(paths: (() => Promise<number>)[], queries = QUERIES, warmup = WARMUP): Promise<Timing[]> {
  for (let i = 0; i < warmup; i++) for (const run of paths) await run();
  const samples: number[][] = paths.map(() => []);
  const bytes = paths.map(() => 0);
  for (let i = 0; i < queries; i++) {
    for (const [k, run] of paths.entries()) {
      const t = performance.now();
      bytes[k] = await run();
      samples[k]!.push(performance.now() - t);
    }
  }
  return samples.map((list, k) => summarise(list, bytes[k]!));
}

function queryRequest(ready: Ready, sourceId: number, query: string, maxRows: number): Buffer {
  const body = JSON.stringify({ query, maxRows });
  return Buffer.from(
    [
      `POST /api/v1/datasources/${sourceId}/query HTTP/1.1`,
      `host: 127.0.0.1:${ready.port}`,
      'content-type: application/json',
      `authorization: Bearer ${ready.token}`,
      `content-length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
}

/** A child's CPU time so far, user and system, in microseconds. */
function cpuOf(c: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: { cpu?: NodeJS.CpuUsage }) => {
      if (!m.cpu) return;
      c.off('message', on);
      resolve(m.cpu.user + m.cpu.system);
    };
    c.on('message', on);
    c.send({ cpu: true });
  });
}

function bareRequest(port: number, query: string): Buffer {
  const body = JSON.stringify({ query });
  return Buffer.from(
    [
      'POST /query HTTP/1.1',
      `host: 127.0.0.1:${port}`,
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
}

const f = (n: number) => n.toFixed(2);

function printPhase(title: string, [viaService, viaBare, viaHttp]: Timing[], target: number): void {
  const ratio = viaService!.p50 / viaBare!.p50;
  console.log(title);
  console.log('| path | mean ms | p50 ms | p99 ms | body bytes |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| POST /api/v1/datasources/:id/query | ${f(viaService!.mean)} | ${f(viaService!.p50)} | ${f(viaService!.p99)} | ${viaService!.bytes.toLocaleString('en')} |`,
  );
  console.log(
    `| bare pg + JSON.stringify | ${f(viaBare!.mean)} | ${f(viaBare!.p50)} | ${f(viaBare!.p99)} | ${viaBare!.bytes.toLocaleString('en')} |`,
  );
  console.log(
    `| the same behind a bare Fastify route (HTTP) | ${f(viaHttp!.mean)} | ${f(viaHttp!.p50)} | ${f(viaHttp!.p99)} | ${viaHttp!.bytes.toLocaleString('en')} |`,
  );
  console.log(
    `ratio to bare pg (p50): ${ratio.toFixed(2)}x (target <= ${target}x: ${ratio <= target ? 'met' : 'NOT met'}); ratio (mean): ${(viaService!.mean / viaBare!.mean).toFixed(2)}x`,
  );
  console.log(
    `ratio to the bare Fastify route (p50): ${(viaService.p50 / viaHttp!.p50).toFixed(2)}x; ratio (mean): ${(viaService.mean / viaHttp!.mean).toFixed(2)}x (no target: what an HTTP API at all costs)`,
  );
}

export async function queryBenchmark(): Promise<void> {
  const { freshPostgres } = await import('../test/support/postgres.ts');
  const service = await freshPostgres('bench_dash_service');
  const data = await freshPostgres('bench_dash_data');
  const dataUrl = new URL(data.url);
  const proxy = await countingProxy({ host: dataUrl.hostname, port: Number(dataUrl.port || 5432) });
  const countedUrl = new URL(data.url);
  countedUrl.hostname = '127.0.0.1';
  countedUrl.port = String(proxy.port);
  let child: ChildProcess | undefined;
  let bareChild: ChildProcess | undefined;
  const bare = new pg.Client({ connectionString: data.url });
  const countedBare = new pg.Client({ connectionString: countedUrl.toString() });
  try {
    await bare.connect();
    await bare.query(SETUP);
    await countedBare.connect();
    child = fork(new URL(import.meta.url).pathname, ['serve', service.url, data.url, countedUrl.toString()], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    bareChild = fork(new URL(import.meta.url).pathname, ['bare', data.url], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const readyOf = <T>(c: ChildProcess) =>
      new Promise<T>((resolve, reject) => {
        c.once('message', (m: { ready: T }) => resolve(m.ready));
        c.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
      });
    const ready = await readyOf<Ready>(child);
    const barePort = (await readyOf<{ port: number }>(bareChild)).port;

    const connection = new BigAnswerConnection(ready.port);
    const viaService = (request: Buffer, rows: number) => {
      let checked = false;
      return async () => {
        const r = await connection.request(request);
        if (r.status !== 200) throw new Error(`query answered ${r.status}: ${r.body.slice(0, 300)}`);
        if (!checked) {
          const parsed = JSON.parse(r.body);
          if (parsed.rowCount !== rows || parsed.columns.length !== 10 || parsed.truncated)
            throw new Error(`the service did not answer ${rows} rows of 10 columns`);
          checked = true;
        }
        return Buffer.byteLength(r.body);
      };
    };
    const viaBare = (client: pg.Client, query: string) => async () => {
      const r = await client.query(query);
      return Buffer.byteLength(JSON.stringify(r.rows));
    };

    const httpConnection = new BigAnswerConnection(barePort);
    const viaHttp = (query: string) => {
      const request = bareRequest(barePort, query);
      return async () => {
        const r = await httpConnection.request(request);
        if (r.status !== 200) throw new Error(`the bare route answered ${r.status}: ${r.body.slice(0, 300)}`);
        return Buffer.byteLength(r.body);
      };
    };

    const many = await timeAll([
      viaService(queryRequest(ready, ready.dataSourceId, QUERY, ROWS), ROWS),
      viaBare(bare, QUERY),
      viaHttp(QUERY),
    ]);
    const cpuBefore = [await cpuOf(child), await cpuOf(bareChild)];
    const one = await timeAll(
      [
        viaService(queryRequest(ready, ready.dataSourceId, ONE_ROW_QUERY, 1000), 1),
        viaBare(bare, ONE_ROW_QUERY),
        viaHttp(ONE_ROW_QUERY),
      ],
      ONE_ROW_QUERIES,
      ONE_ROW_WARMUP,
    );
    const requests = ONE_ROW_QUERIES + ONE_ROW_WARMUP;
    const cpuPerQuery = [
      ((await cpuOf(child)) - cpuBefore[0]!) / requests,
      ((await cpuOf(bareChild)) - cpuBefore[1]!) / requests,
    ];

    // Round trips: the pooled connection is opened by a first query, then counting starts.
    const counted = viaService(queryRequest(ready, ready.countedSourceId, ONE_ROW_QUERY, 1000), 1);
    await counted();
    proxy.reset();
    for (let i = 0; i < COUNTED_QUERIES; i++) await counted();
    const serviceTrips = { ...proxy };
    proxy.reset();
    for (let i = 0; i < COUNTED_QUERIES; i++) await viaBare(countedBare, ONE_ROW_QUERY)();
    const bareTrips = { ...proxy };
    connection.close();
    httpConnection.close();

    const stopOf = (c: ChildProcess) =>
      new Promise<{ maxRssMiB: number }>((resolve) => {
        c.on('message', (m: { stopped?: { maxRssMiB: number } }) => m.stopped && resolve(m.stopped));
        c.send({ stop: true });
      });
    const stopped = await stopOf(child);
    await stopOf(bareChild);
    console.log(
      `dashboard query benchmark: one query at a time, the three paths alternating; ${ROWS.toLocaleString('en')} rows: ${QUERIES} queries per path after ${WARMUP} warm-up; one row: ${ONE_ROW_QUERIES} after ${ONE_ROW_WARMUP}`,
    );
    printPhase(`${ROWS.toLocaleString('en')} rows x 10 columns`, many, 1.3);
    printPhase('one row x 10 columns', one, 1.5);
    console.log(
      `CPU per one-row query (user + system, warm-up included): service process ${cpuPerQuery[0]!.toFixed(0)} us; bare Fastify route's process ${cpuPerQuery[1]!.toFixed(0)} us`,
    );
    const per = (n: number) => (n / COUNTED_QUERIES).toFixed(2);
    console.log(
      `round trips to the source per one-row query (${COUNTED_QUERIES} queries through the counting proxy): service ${per(serviceTrips.turns)} (Sync ${per(serviceTrips.syncs)}, Query ${per(serviceTrips.queries)}, Flush ${per(serviceTrips.flushes)}, new connections ${serviceTrips.connections}; target <= 3: ${serviceTrips.turns / COUNTED_QUERIES <= 3 ? 'met' : 'NOT met'}); bare pg ${per(bareTrips.turns)}`,
    );
    console.log(
      `server peak RSS: ${stopped.maxRssMiB} MiB; bench process peak RSS: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
    );
  } finally {
    await bare.end().catch(() => {});
    await countedBare.end().catch(() => {});
    for (const c of [child, bareChild]) {
      if (!c || c.exitCode !== null) continue;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      const timer = setTimeout(() => c.kill(), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await proxy.close();
    await service.drop();
    await data.drop();
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!, process.argv[4]!, process.argv[5]!);
else if (process.argv[2] === 'bare') await serveBare(process.argv[3]!);
else if (import.meta.url === `file://${process.argv[1]}`) await queryBenchmark();
