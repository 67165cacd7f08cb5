/**
 * Ingestion benchmark: the ingest service on real PostgreSQL in its own process, driven by a load process
 * with several keep-alive connections sending realistic 1,000-event batches; then the same load against a
 * bare endpoint that only parses the JSON and answers 202. Prints events/s, latency and the servers' peak RSS.
 *
 *   npm run bench:ingest            (BENCH_SECONDS=20 BENCH_CONNECTIONS=8 BENCH_POSTGRES_URL=postgres://...)
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

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const BATCH = 1000;

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
  const templates = eventTemplates(projectId);
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

async function main(): Promise<void> {
  const adminUrl =
    process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `bench_ingest_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const token = randomBytes(24).toString('hex');
  let server: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  try {
    const env = {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      INGEST_PORT: '0',
      INGEST_ADMIN_TOKEN: token,
      LOG_LEVEL: 'warn',
      DATA_DIR: `/tmp/${dbName}`,
    };
    const started = await startChild(['src/cli.ts', 'start', 'ingest'], env, /ingest\s+(http:\/\/\S+)/);
    server = started.child;
    const api = (path: string, body: unknown) =>
      fetch(new URL(path, started.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, string>>);
    const project = await api('/api/v1/projects', { name: 'bench', id: 'bench' });
    const { key } = await api(`/api/v1/projects/${project.id}/keys`, { name: 'bench' });

    console.log(
      `ingest benchmark: ${CONNECTIONS} connections, ${BATCH}-event batches, ${SECONDS} s measured after ${WARMUP_SECONDS} s warm-up`,
    );
    const ingest = await measured(started.url, key!, project.id!, server.pid!);
    const ingestRss = peakRssMb(server.pid!);
    const commits = await groupCommits(started.url, token);
    const check = new pg.Client({ connectionString: dbUrl.toString() });
    await check.connect();
    const rows = (await check.query('SELECT count(*)::int AS n FROM ingest.events')).rows[0].n as number;
    await check.end();

    const bareStarted = await startChild([SELF, 'bare'], process.env, /bare\s+(http:\/\/\S+)/);
    bare = bareStarted.child;
    const baseline = await measured(bareStarted.url, 'unused', project.id!, bare.pid!);
    const bareRss = peakRssMb(bare.pid!);

    console.log(
      `batch size ${(ingest.result.bytesPerBatch / 1024).toFixed(0)} KB (${Math.round(ingest.result.bytesPerBatch / BATCH)} bytes per event)`,
    );
    const a = summarise('ingest', ingest.result, ingestRss, ingest.serverCpu, ingest.postgresCpu);
    const b = summarise('bare', baseline.result, bareRss, baseline.serverCpu, baseline.postgresCpu);
    console.log(
      `${''.padEnd(8)} group commits: ${commits.count.toLocaleString('en')}, ${Math.round(commits.events / commits.count).toLocaleString('en')} events and ${((1000 * commits.seconds) / commits.count).toFixed(0)} ms each on average; ` +
        `events per CPU-second (server + PostgreSQL) ${Math.round(a / (ingest.serverCpu + ingest.postgresCpu)).toLocaleString('en')}`,
    );
    console.log(`ratio    ingest / bare = ${(a / b).toFixed(2)}`);
    console.log(
      `stored   ${rows.toLocaleString('en')} rows in ingest.events (accepted during warm-up and measurement, every one committed before its 202)`,
    );
  } finally {
    // Waiting for the exits lets a server started with --cpu-prof write its profile.
    await Promise.all([server, bare].map((child) => stopChild(child)));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

// Dispatched last: the constants above must exist before any role runs.
const role = process.argv[2];
if (role === 'bare') await bareServer();
else if (role === 'load') await load(process.argv[3]!, process.argv[4]!, process.argv[5]!);
else await main();
