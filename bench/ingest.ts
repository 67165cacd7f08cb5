/**
 * Ingestion benchmark: the ingest service on real PostgreSQL in its own process, driven by a load process
 * with several keep-alive connections sending realistic 1,000-event batches, in each mode on a fresh database:
 * `postgres` (every batch committed before its 202) and `log` (a three-node NATS JetStream cluster in front, the
 * 202 once the stream holds the batch, one `platform ingest loader` process storing it); then the same load against
 * a bare endpoint that only parses the JSON and answers 202. Prints events/s acknowledged, the ack latency, the
 * servers' peak RSS and CPU, and with the log how far storage was behind when the load stopped and how long it took
 * to catch up.
 *
 *   npm run bench:ingest   (BENCH_SECONDS=20 BENCH_CONNECTIONS=8 BENCH_MODES=postgres,log BENCH_LOG_REPLICAS=3
 *                           BENCH_LOADERS=1 BENCH_DRAIN_LOADERS=1 BENCH_POSTGRES_URL=postgres://...)
 *   BENCH_SCHEMA_SQL='...': run on the migrated database (search_path ingest) before the load.
 *   BENCH_LOADERS=0: the acceptors alone during the load, then BENCH_DRAIN_LOADERS loader processes drain the stream.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Connection, percentile } from './support/connection.ts';
import { eventTemplates } from './support/events.ts';
import { cpuSeconds, postgresCpuSeconds, postgresCpuSince } from './support/proc.ts';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startNatsCluster } from '../test/ingest/nats-cluster.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const BATCH = 1000;
const MODES = (process.env.BENCH_MODES ?? 'postgres,log').split(',').map((m) => m.trim()) as ('postgres' | 'log')[];
const LOG_REPLICAS = Number(process.env.BENCH_LOG_REPLICAS ?? 3);
const LOADER_PROCESSES = Number(process.env.BENCH_LOADERS ?? 1);
const DRAIN_LOADERS = Number(process.env.BENCH_DRAIN_LOADERS ?? 1);
/**
 * SQL run on the migrated database before the load, to measure a change of the schema against the migrations' own in
 * alternating runs: e.g. migration 010's read indexes against 011's (bench/README.md, issue 33).
 */
const SCHEMA_SQL = process.env.BENCH_SCHEMA_SQL;

interface LoadResult {
  requests: number;
  events: number;
  accepted: number;
  failures: number;
  latencies: number[];
  seconds: number;
  bytesPerBatch: number;
  /** CPU time of the load process over its wall time (1 = one full core). */
  loadCpuShare: number;
}

/** The ceiling: read the body, JSON.parse it, answer 202. */
async function bareServer(): Promise<void> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: unknown[] };
      const answer = JSON.stringify({ accepted: body.events.length, rejected: 0, errors: [] });
      res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.stdout.write(`bare http://127.0.0.1:${address.port}\n`);
  });
}

const ID_DIGITS = 12;

/**
 * A whole request (headers and a 1,000-event body) in one buffer, built once per connection; each event's id ends
 * in a fixed-width counter that is rewritten in place before each send, so every batch carries new event_ids
 * without building a 580 KB string per request.
 */
function batchRequest(
  target: URL,
  key: string,
  templates: string[],
  idPrefix: string,
): { bytes: Buffer; renumber: (first: number) => void } {
  const marker = `${idPrefix}${'0'.repeat(ID_DIGITS)}`;
  const body = Buffer.from(`{"events":[${templates.map((t) => t.replace('@ID@', marker)).join(',')}]}`);
  const head = Buffer.from(
    `POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\nx-svc-api-key: ${key}\r\ncontent-length: ${body.length}\r\n\r\n`,
  );
  const bytes = Buffer.concat([head, body]);
  const slots: number[] = [];
  for (let at = bytes.indexOf(marker, head.length); at >= 0; at = bytes.indexOf(marker, at + marker.length))
    slots.push(at + idPrefix.length);
  if (slots.length !== templates.length) throw new Error('event id marker not found once per event');
  return {
    bytes,
    renumber(first) {
      for (let i = 0; i < slots.length; i++)
        bytes.write(String(first + i).padStart(ID_DIGITS, '0'), slots[i]!, 'latin1');
    },
  };
}

/** Runs in its own process: CONNECTIONS loops, each sending one batch at a time and timing it. */
async function load(url: string, key: string, projectId: string): Promise<void> {
  // Timestamps of today, as live traffic has: events go to today's partition (docs/ingest.md, *Retention*).
  const now = Date.now();
  const templates = eventTemplates(projectId).map((t, i) =>
    t.replace(/"event\.timestamp":"[^"]+"/, `"event.timestamp":"${new Date(now - i * 137).toISOString()}"`),
  );
  const runId = randomBytes(6).toString('hex');
  const target = new URL('/v1/events', url);
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const result: LoadResult = {
    requests: 0,
    events: 0,
    accepted: 0,
    failures: 0,
    latencies: [],
    seconds: SECONDS,
    bytesPerBatch: 0,
    loadCpuShare: 0,
  };
  const warmupEnd = Date.now() + WARMUP_SECONDS * 1000;
  const end = warmupEnd + SECONDS * 1000;
  const worker = async (n: number) => {
    const request = batchRequest(target, key, templates, `${runId}-${n}-`);
    result.bytesPerBatch = request.bytes.length;
    const connection = new Connection(target);
    let counter = 0;
    try {
      while (Date.now() < end) {
        request.renumber(counter);
        counter += BATCH;
        const started = performance.now();
        const answer = await connection.request(request.bytes).then(
          (r) => ({
            status: r.status,
            accepted: r.status === 202 ? (JSON.parse(r.body) as { accepted: number }).accepted : 0,
          }),
          () => ({ status: 0, accepted: 0 }),
        );
        const finished = Date.now();
        if (finished < warmupEnd || finished > end) continue;
        result.requests++;
        result.events += BATCH;
        result.accepted += answer.accepted;
        if (answer.status !== 202) result.failures++;
        result.latencies.push(performance.now() - started);
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => worker(n)));
  const cpu = process.cpuUsage(cpuStart);
  result.loadCpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - started);
  process.stdout.write(JSON.stringify(result) + '\n');
}

function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${err}`)));
  });
}

function runLoad(url: string, key: string, projectId: string): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [SELF, 'load', url, key, projectId], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load exited with ${code}`)),
    );
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

/** Peak resident set size of a live process, from the kernel's high-water mark. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

/** Runs the load and reports the share of a core the server and PostgreSQL used meanwhile (1 = one full core). */
async function measured(
  url: string,
  key: string,
  projectId: string,
  serverPid: number,
): Promise<{ result: LoadResult; serverCpu: number; postgresCpu: number }> {
  const t0 = performance.now();
  const server0 = cpuSeconds(serverPid);
  const pg0 = postgresCpuSeconds();
  const result = await runLoad(url, key, projectId);
  const wall = (performance.now() - t0) / 1000;
  return { result, serverCpu: (cpuSeconds(serverPid) - server0) / wall, postgresCpu: postgresCpuSince(pg0) / wall };
}

function summarise(name: string, r: LoadResult, rssMb: number, serverCpu: number, postgresCpu: number) {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const perSecond = r.accepted / r.seconds;
  console.log(
    `${name.padEnd(8)} ${Math.round(perSecond).toLocaleString('en').padStart(9)} events/s accepted  ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  ` +
      `${r.requests} requests, ${r.failures} not 202  peak RSS ${rssMb.toFixed(0)} MB`,
  );
  console.log(
    `${''.padEnd(8)} CPU (share of one core): server ${serverCpu.toFixed(2)}, PostgreSQL ${postgresCpu.toFixed(2)}, load generator ${r.loadCpuShare.toFixed(2)}`,
  );
  return perSecond;
}

/** The server's group commits so far (warm-up included), from its own histograms on /metrics. */
async function groupCommits(url: string, token: string): Promise<{ count: number; events: number; seconds: number }> {
  const text = await fetch(new URL('/metrics', url), { headers: { authorization: `Bearer ${token}` } }).then((r) =>
    r.text(),
  );
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    count: value('ingest_commit_events_count'),
    events: value('ingest_commit_events_sum'),
    seconds: value('ingest_commit_duration_seconds_sum'),
  };
}

/** The log's backlog from the server's /ready: events acknowledged and not yet stored, and the oldest one's age. */
async function backlog(url: string): Promise<{ events: number; seconds: number } | undefined> {
  const ready = (await fetch(new URL('/ready', url)).then((r) => r.json())) as {
    log?: { pending_events: number; lag_seconds: number };
  };
  return ready.log ? { events: ready.log.pending_events, seconds: ready.log.lag_seconds } : undefined;
}

/** CPU seconds so far of processes by pid (those gone count 0). */
function cpuOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

interface ModeReport {
  name: string;
  result: LoadResult;
  rss: number;
  serverCpu: number;
  postgresCpu: number;
  /** nats-server processes and loader processes, share of a core during the load. */
  natsCpu: number;
  loaderCpu: number;
  rows: number;
  /** With the log: what waited in the stream when the load stopped, and how long storage took to hold it all. */
  catchUp?: {
    events: number;
    lagSeconds: number;
    seconds: number;
    loaderEventsPerSecond: number;
    loaders: number;
    /** CPU per event stored while draining (after the first stored row), in µs. */
    microsPerEvent?: { postgres: number; loaders: number; nats: number };
  };
  commits: { count: number; events: number; seconds: number };
}

/**
 * One mode on a fresh database: `postgres` (each batch committed before its 202) or `log` (a three-node JetStream
 * cluster in front, one `platform ingest loader` process beside the server, as an operator would run them).
 */
async function runMode(mode: 'postgres' | 'log', adminUrl: string, admin: pg.Client): Promise<ModeReport> {
  const dbName = `bench_ingest_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const token = randomBytes(24).toString('hex');
  const children: ChildProcess[] = [];
  const cluster = mode === 'log' ? await startNatsCluster(3, 'bench') : undefined;
  try {
    await cluster?.ready();
    const env = {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      INGEST_PORT: '0',
      INGEST_ADMIN_TOKEN: token,
      LOG_LEVEL: 'warn',
      DATA_DIR: `/tmp/${dbName}`,
      ...(cluster
        ? {
            INGEST_JETSTREAM_SERVERS: cluster.servers,
            INGEST_JETSTREAM_REPLICAS: String(LOG_REPLICAS),
            INGEST_JETSTREAM_LOADERS: '0',
          }
        : {}),
    };
    const started = await startChild(['src/cli.ts', 'start', 'ingest'], env, /ingest\s+(http:\/\/\S+)/);
    children.push(started.child);
    const loaders: { child: ChildProcess; url: string }[] = [];
    for (let i = 0; cluster && i < LOADER_PROCESSES; i++) {
      const loader = await startChild(
        ['src/cli.ts', 'ingest', 'loader', '--port', '0'],
        env,
        /ingest-loader\s+(http:\/\/\S+)/,
      );
      loaders.push(loader);
      children.push(loader.child);
    }
    const api = (path: string, body: unknown) =>
      fetch(new URL(path, started.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, string>>);
    const project = await api('/api/v1/projects', { name: 'bench', id: 'bench' });
    const { key } = await api(`/api/v1/projects/${project.id}/keys`, { name: 'bench' });
    if (SCHEMA_SQL) {
      const alter = new pg.Client({ connectionString: dbUrl.toString() });
      await alter.connect();
      await alter.query(`SET search_path TO ingest; ${SCHEMA_SQL}`);
      await alter.end();
    }

    const natsPids = cluster ? cluster.nodes.map((n) => n.pid()!) : [];
    const loaderPids = loaders.map((l) => l.child.pid!);
    const t0 = performance.now();
    const nats0 = cpuOf(natsPids);
    const loaders0 = cpuOf(loaderPids);
    const measuredRun = await measured(started.url, key!, project.id!, started.child.pid!);
    const wall = (performance.now() - t0) / 1000;
    const natsCpu = (cpuOf(natsPids) - nats0) / wall;
    const loaderCpu = (cpuOf(loaderPids) - loaders0) / wall;
    const rss = peakRssMb(started.child.pid!);

    const check = new pg.Client({ connectionString: dbUrl.toString() });
    await check.connect();
    const count = async () => (await check.query('SELECT count(*)::int AS n FROM ingest.events')).rows[0].n as number;
    let catchUp: ModeReport['catchUp'];
    if (cluster) {
      const atEnd = (await backlog(started.url))!;
      const rowsAtEnd = await count();
      const drainStart = performance.now();
      // Without loaders during the load (BENCH_LOADERS=0: what the acceptors take alone), BENCH_DRAIN_LOADERS
      // loader processes start now to drain the stream.
      const drainers = loaders.length === 0 ? DRAIN_LOADERS : 0;
      for (let i = 0; i < drainers; i++) {
        const loader = await startChild(
          ['src/cli.ts', 'ingest', 'loader', '--port', '0'],
          env,
          /ingest-loader\s+(http:\/\/\S+)/,
        );
        loaders.push(loader);
        children.push(loader.child);
      }
      // Rates are taken from the first stored row on (a loader process takes a second or two to start).
      let first: { at: number; rows: number; pg: Map<number, number>; loaders: number; nats: number } | undefined;
      let b = atEnd;
      while (b.events > 0) {
        await new Promise((r) => setTimeout(r, 100));
        b = (await backlog(started.url))!;
        if (!first) {
          const rows = await count();
          if (rows > rowsAtEnd)
            first = {
              at: performance.now(),
              rows,
              pg: postgresCpuSeconds(),
              loaders: cpuOf(loaders.map((l) => l.child.pid!)),
              nats: cpuOf(natsPids),
            };
        }
      }
      const end = performance.now();
      const drained = (await count()) - (first?.rows ?? rowsAtEnd);
      const rate = first && end > first.at ? drained / ((end - first.at) / 1000) : 0;
      const perEvent = (cpu: number) => (drained > 0 ? (1e6 * cpu) / drained : 0);
      catchUp = {
        events: atEnd.events,
        lagSeconds: atEnd.seconds,
        seconds: (end - drainStart) / 1000,
        loaderEventsPerSecond: rate,
        loaders: loaders.length,
        microsPerEvent: first
          ? {
              postgres: perEvent(postgresCpuSince(first.pg)),
              loaders: perEvent(cpuOf(loaders.map((l) => l.child.pid!)) - first.loaders),
              nats: perEvent(cpuOf(natsPids) - first.nats),
            }
          : undefined,
      };
    }
    const rows = await count();
    await check.end();
    // With the log the server commits nothing itself: the (first) loader's group commits are what was stored.
    const commits = await groupCommits(loaders[0]?.url ?? started.url, token);
    return {
      name: mode,
      result: measuredRun.result,
      rss,
      serverCpu: measuredRun.serverCpu,
      postgresCpu: measuredRun.postgresCpu,
      natsCpu,
      loaderCpu,
      rows,
      catchUp,
      commits,
    };
  } finally {
    // Waiting for the exits lets a server started with --cpu-prof write its profile.
    await Promise.all(children.map((child) => stopChild(child)));
    await cluster?.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

async function main(): Promise<void> {
  const adminUrl =
    process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  let bare: ChildProcess | undefined;
  try {
    console.log(
      `ingest benchmark: ${CONNECTIONS} connections, ${BATCH}-event batches, ${SECONDS} s measured after ${WARMUP_SECONDS} s warm-up; modes ${MODES.join(', ')}` +
        (MODES.includes('log')
          ? ` (log: ${LOG_REPLICAS} replicas on 3 nats-servers, ${LOADER_PROCESSES} loader process(es))`
          : ''),
    );
    const reports: ModeReport[] = [];
    for (const mode of MODES) reports.push(await runMode(mode, adminUrl, admin));

    const bareStarted = await startChild([SELF, 'bare'], process.env, /bare\s+(http:\/\/\S+)/);
    bare = bareStarted.child;
    const baseline = await measured(bareStarted.url, 'unused', 'bench', bare.pid!);
    const bareRss = peakRssMb(bare.pid!);

    console.log(
      `batch size ${(reports[0]!.result.bytesPerBatch / 1024).toFixed(0)} KB (${Math.round(reports[0]!.result.bytesPerBatch / BATCH)} bytes per event)`,
    );
    const b = summarise('bare', baseline.result, bareRss, baseline.serverCpu, baseline.postgresCpu);
    for (const r of reports) {
      const a = summarise(r.name, r.result, r.rss, r.serverCpu, r.postgresCpu);
      if (r.name === 'log')
        console.log(
          `${''.padEnd(8)} CPU (share of one core): nats-servers ${r.natsCpu.toFixed(2)}, loader process ${r.loaderCpu.toFixed(2)}`,
        );
      const c = r.commits;
      if (c.count > 0)
        console.log(
          `${''.padEnd(8)} group commits${r.name === 'log' ? ' (by the loader)' : ''}: ${c.count.toLocaleString('en')}, ${Math.round(c.events / c.count).toLocaleString('en')} events and ${((1000 * c.seconds) / c.count).toFixed(0)} ms each on average`,
        );
      console.log(`${''.padEnd(8)} ratio ${r.name} / bare = ${(a / b).toFixed(2)}`);
      if (r.catchUp) {
        const c = r.catchUp;
        console.log(
          `${''.padEnd(8)} storage behind the 202s when the load stopped: ${c.events.toLocaleString('en')} events (oldest ${c.lagSeconds.toFixed(1)} s); ` +
            `caught up ${c.seconds.toFixed(1)} s later (${c.loaders} loader process${c.loaders === 1 ? '' : 'es'} then stored ${Math.round(c.loaderEventsPerSecond).toLocaleString('en')} events/s)`,
        );
        if (c.microsPerEvent && c.events > 10_000)
          console.log(
            `${''.padEnd(8)} CPU per event stored while catching up: PostgreSQL ${c.microsPerEvent.postgres.toFixed(1)} µs, loader ${c.microsPerEvent.loaders.toFixed(1)} µs, nats-servers ${c.microsPerEvent.nats.toFixed(1)} µs`,
          );
      }
      console.log(
        `${''.padEnd(8)} stored ${r.rows.toLocaleString('en')} rows in ingest.events (accepted during warm-up and measurement${r.name === 'log' ? ', after catching up' : ', each committed before its 202'})`,
      );
    }
  } finally {
    await stopChild(bare);
    await admin.end();
  }
}

// Dispatched last: the constants above must exist before any role runs.
const role = process.argv[2];
if (role === 'bare') await bareServer();
else if (role === 'load') await load(process.argv[3]!, process.argv[4]!, process.argv[5]!);
else await main();
