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

const PAGES = ['/', '/pricing', '/checkout', '/account/settings', '/docs/getting-started', '/search?q=shoes'];
const TYPES = ['page.view', 'ui.click', 'ui.input', 'api.request', 'api.response', 'state.change', 'journey.step', 'performance', 'error', 'custom'];

/** About 550 bytes of JSON per event, shaped like what a web SDK sends. `@ID@` is replaced per request. */
function eventTemplates(projectId: string): string[] {
  return Array.from({ length: BATCH }, (_, i) => {
    const type = TYPES[i % TYPES.length]!;
    const event: Record<string, unknown> = {
      event_id: '@ID@',
      project_id: projectId,
      'session.id': `sess-${i % 37}-${randomBytes(4).toString('hex')}`,
      'event.type': type,
      'event.timestamp': new Date(Date.UTC(2025, 2, 4, 10, 0, 0) + i * 137).toISOString(),
      'event.sequence': i,
      'user.id': `user-${i % 91}`,
      'page.path': PAGES[i % PAGES.length],
      'page.url': `https://shop.example.com${PAGES[i % PAGES.length]}`,
      'page.title': 'Example Shop — fast shoes for everyone',
      'ui.component.name': 'AddToCartButton',
      'ui.component.path': 'App/Layout/ProductPage/BuyBox/AddToCartButton',
      'ui.action': 'click',
      metadata: { plan: i % 3 === 0 ? 'pro' : 'free', experiment: 'checkout-v2', viewport: { w: 1440, h: 900 }, locale: 'en-GB' },
    };
    if (type.startsWith('api.')) Object.assign(event, { 'api.method': 'POST', 'api.path': '/api/cart', 'api.status_code': 201, 'api.duration_ms': 40 + (i % 60) });
    if (type === 'error') Object.assign(event, { 'error.type': 'TypeError', 'error.message': 'Cannot read properties of undefined', 'error.stack': 'TypeError: x\n    at render (app.js:10:5)' });
    if (type === 'state.change') Object.assign(event, { 'ui.state.key': 'cart', 'ui.state.before': '{"items":1}', 'ui.state.after': '{"items":2}' });
    return JSON.stringify(event);
  });
}

/** Runs in its own process: CONNECTIONS loops, each sending one batch at a time and timing it. */
async function load(url: string, key: string, projectId: string): Promise<void> {
  const templates = eventTemplates(projectId);
  const pieces = templates.map((t) => t.split('@ID@'));
  const runId = randomBytes(6).toString('hex');
  let counter = 0;
  const makeBody = () => {
    const parts: string[] = [];
    for (const [before, after] of pieces) parts.push(`${before}${runId}-${counter++}${after}`);
    return `{"events":[${parts.join(',')}]}`;
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const target = new URL('/v1/events', url);
  const send = (body: string) =>
    new Promise<{ status: number; accepted: number }>((resolve, reject) => {
      const req = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, accepted: res.statusCode === 202 ? (JSON.parse(text) as { accepted: number }).accepted : 0 });
        });
      });
      req.on('error', reject);
      req.end(body);
    });

  const result: LoadResult = { requests: 0, events: 0, accepted: 0, failures: 0, latencies: [], seconds: SECONDS, bytesPerBatch: Buffer.byteLength(makeBody()) };
  const warmupEnd = Date.now() + WARMUP_SECONDS * 1000;
  const end = warmupEnd + SECONDS * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const body = makeBody();
      const started = performance.now();
      const answer = await send(body).catch(() => ({ status: 0, accepted: 0 }));
      const finished = Date.now();
      if (finished < warmupEnd || finished > end) continue;
      result.requests++;
      result.events += BATCH;
      result.accepted += answer.accepted;
      if (answer.status !== 202) result.failures++;
      result.latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  process.stdout.write(JSON.stringify(result) + '\n');
}

function startChild(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; url: string }> {
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
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load exited with ${code}`))));
  });
}

/** Peak resident set size of a live process, from the kernel's high-water mark. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summarise(name: string, r: LoadResult, rssMb: number) {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const perSecond = r.accepted / r.seconds;
  console.log(`${name.padEnd(8)} ${Math.round(perSecond).toLocaleString('en').padStart(9)} events/s accepted  ` +
    `p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  ` +
    `${r.requests} requests, ${r.failures} not 202  peak RSS ${rssMb.toFixed(0)} MB`);
  return perSecond;
}

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
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
    const env = { ...process.env, DATABASE_URL: dbUrl.toString(), INGEST_PORT: '0', INGEST_ADMIN_TOKEN: token, LOG_LEVEL: 'warn', DATA_DIR: `/tmp/${dbName}` };
    const started = await startChild(['src/cli.ts', 'start', 'ingest'], env, /ingest\s+(http:\/\/\S+)/);
    server = started.child;
    const api = (path: string, body: unknown) =>
      fetch(new URL(path, started.url), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<Record<string, string>>);
    const project = await api('/v1/admin/projects', { name: 'bench', id: 'bench' });
    const { key } = await api(`/v1/admin/projects/${project.id}/keys`, { name: 'bench' });

    console.log(`ingest benchmark: ${CONNECTIONS} connections, ${BATCH}-event batches, ${SECONDS} s measured after ${WARMUP_SECONDS} s warm-up`);
    const ingest = await runLoad(started.url, key!, project.id!);
    const ingestRss = peakRssMb(server.pid!);
    const check = new pg.Client({ connectionString: dbUrl.toString() });
    await check.connect();
    const rows = (await check.query('SELECT count(*)::int AS n FROM ingest.events')).rows[0].n as number;
    await check.end();

    const bareStarted = await startChild([SELF, 'bare'], process.env, /bare\s+(http:\/\/\S+)/);
    bare = bareStarted.child;
    const baseline = await runLoad(bareStarted.url, 'unused', project.id!);
    const bareRss = peakRssMb(bare.pid!);

    console.log(`batch size ${(ingest.bytesPerBatch / 1024).toFixed(0)} KB (${Math.round(ingest.bytesPerBatch / BATCH)} bytes per event)`);
    const a = summarise('ingest', ingest, ingestRss);
    const b = summarise('bare', baseline, bareRss);
    console.log(`ratio    ingest / bare = ${(a / b).toFixed(2)}`);
    console.log(`stored   ${rows.toLocaleString('en')} rows in ingest.events (accepted during warm-up and measurement, every one committed before its 202)`);
  } finally {
    server?.kill('SIGTERM');
    bare?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

// Dispatched last: the constants above must exist before any role runs.
const role = process.argv[2];
if (role === 'bare') await bareServer();
else if (role === 'load') await load(process.argv[3]!, process.argv[4]!, process.argv[5]!);
else await main();
