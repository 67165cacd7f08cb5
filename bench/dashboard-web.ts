/**
 * Dashboard web app benchmark: time to first chart for a dashboard of 12 chart widgets, each a query of 1,000 rows,
 * in headless Chromium — from navigation start to every chart drawn (ECharts' `finished` event, which the app marks
 * with `data-drawn`) — and the gzip size of the JavaScript of the first screen and of the dashboard page.
 *
 * The service runs in a child process on a fresh PostgreSQL database with a data source on a second one; each
 * measured load is a new browser context (empty cache, a real session in sessionStorage), so every run fetches the
 * app, ECharts and the 12 query answers anew. Runs with the default motion (chart animation, ~1 s) and with
 * reduced motion (no animation: the drawing itself).
 *
 *   npm run bench:dashboard-web     (BENCH_RUNS=7 per mode after one warm-up; needs `npm run build` first)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { percentile } from './support/connection.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WIDGETS = 12;
const ROWS = 1_000;
const DIST = new URL('../web/dashboard/dist/', import.meta.url);

interface Ready {
  port: number;
  pair: { accessToken: string; refreshToken: string; expiresIn: number; tokenType: string };
  dashboardId: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** The child: the service, a tenant, an owner's token pair, a data source and the 12-widget dashboard. */
async function serve(serviceUrl: string, dataUrl: string): Promise<void> {
  const { buildDashboardApp } = await import('../src/dashboard/app.ts');
  const { loadDashboardConfig } = await import('../src/dashboard/config.ts');
  const { dashboardCommand } = await import('../src/dashboard/cli.ts');
  const port = await freePort();
  const config = loadDashboardConfig({
    DASHBOARD_DATABASE_URL: serviceUrl,
    LOG_LEVEL: 'warn',
    DATA_DIR: `/tmp/dashboard-web-bench-${process.pid}`,
    DASHBOARD_PORT: String(port),
    DASHBOARD_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DASHBOARD_JWT_SECRET: randomBytes(32).toString('base64url'),
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
    ['users', 'create', '--tenant', 'bench', '--email', 'owner@bench.example', '--name', 'Bench', '--role', 'owner'],
    config,
    io,
  );
  await dashboardCommand(['token', '--tenant', 'bench', '--email', 'owner@bench.example'], config, io);
  const pair = JSON.parse(out[out.length - 1]!);
  const call = async (method: 'POST', url: string, payload: unknown) => {
    const r = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${pair.accessToken}` },
      payload: payload as object,
    });
    if (r.statusCode !== 201) throw new Error(`${url}: ${r.body}`);
    return r.json();
  };
  const source = await call('POST', '/api/v1/datasources', {
    name: 'Bench',
    slug: 'bench',
    type: 'postgres',
    connectionUrl: dataUrl,
  });
  const widgets = Array.from({ length: WIDGETS }, (_, i) => ({
    id: `w${i + 1}`,
    type: i % 2 ? 'bar' : 'line',
    title: `Series ${i + 1}`,
    position: { x: (i % 2) * 6, y: Math.floor(i / 2) * 6, w: 6, h: 6 },
    dataSourceId: source.id,
    query: `SELECT at, value FROM points WHERE series = ${i + 1} ORDER BY at`,
  }));
  const dashboard = await call('POST', '/api/v1/dashboards', {
    slug: 'bench',
    title: 'Twelve charts',
    definition: { layout: { type: 'grid', columns: 12, rowHeight: 40 }, dataSources: [{ id: source.id }], widgets },
  });
  process.send!({ ready: { port, pair, dashboardId: dashboard.id } satisfies Ready });
  process.on('message', async (m: { stop?: boolean }) => {
    if (!m.stop) return;
    await app.close();
    process.exit(0);
  });
}

/** The first screen's JavaScript as index.html loads it (the entry and its modulepreloads), gzip level 9 as the build counts. */
function firstScreenGzip(): { files: number; bytes: number } {
  const html = readFileSync(new URL('index.html', DIST), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  return {
    files: files.length,
    bytes: files.reduce((sum, f) => sum + gzipSync(readFileSync(new URL(f, DIST)), { level: 9 }).length, 0),
  };
}

async function main(): Promise<void> {
  const { freshPostgres } = await import('../test/support/postgres.ts');
  const { chromium } = await import('playwright-core');
  const { CHROMIUM_ARGS, findChromium } = await import('../src/kit/browser.ts');
  const service = await freshPostgres('bench_dashweb_service');
  const data = await freshPostgres('bench_dashweb_data');
  let child: ChildProcess | undefined;
  const browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  try {
    const c = new pg.Client({ connectionString: data.url });
    await c.connect();
    await c.query(`CREATE TABLE points (series int NOT NULL, at timestamptz NOT NULL, value float8 NOT NULL, PRIMARY KEY (series, at));
      INSERT INTO points SELECT s, '2026-01-01T00:00:00Z'::timestamptz + g * interval '1 minute', sin(g / 50.0 + s) * 100 + s
        FROM generate_series(1, ${WIDGETS}) s, generate_series(1, ${ROWS}) g;
      ANALYZE points;`);
    await c.end();
    child = fork(new URL(import.meta.url).pathname, ['serve', service.url, data.url], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await new Promise<Ready>((resolve, reject) => {
      child!.once('message', (m: { ready: Ready }) => resolve(m.ready));
      child!.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const url = `http://127.0.0.1:${ready.port}/dashboards/${ready.dashboardId}`;

    /** One cold load: a new context, navigation, then the page's own clock when the 12th chart reports drawn. */
    const load = async (reducedMotion: 'reduce' | 'no-preference') => {
      const context = await browser.newContext({ reducedMotion, viewport: { width: 1280, height: 900 } });
      await context.addInitScript((p) => sessionStorage.setItem('dashboard.session', p), JSON.stringify(ready.pair));
      const page = await context.newPage();
      const js: Promise<number>[] = [];
      page.on('response', (r) => {
        if (r.url().endsWith('.js')) js.push(r.body().then((b) => gzipSync(b, { level: 9 }).length));
      });
      await page.goto(url);
      const drawnAt = await page.waitForFunction(
        (n) => {
          const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } })
            .document;
          return doc.querySelectorAll('.chart[data-drawn="true"] canvas').length >= n ? performance.now() : false;
        },
        WIDGETS,
        { timeout: 120_000, polling: 'raf' },
      );
      const ms = (await drawnAt.jsonValue()) as number;
      const rows = await page.evaluate(
        () =>
          (
            globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
          ).document.querySelectorAll('.chart').length,
      );
      if (rows !== WIDGETS) throw new Error(`expected ${WIDGETS} charts, found ${rows}`);
      const jsGzip = (await Promise.all(js)).reduce((a, b) => a + b, 0);
      await context.close();
      return { ms, jsGzip };
    };

    const first = firstScreenGzip();
    console.log(
      `dashboard web benchmark: ${WIDGETS} charts (line and bar, alternating) x ${ROWS.toLocaleString('en')} rows each, headless Chromium 1280x900, ${RUNS} cold loads per mode after 1 warm-up`,
    );
    console.log(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      `first screen JavaScript: ${first.bytes.toLocaleString('en')} bytes gzip in ${first.files} files (limit 256,000)`,
    );
    for (const mode of ['no-preference', 'reduce'] as const) {
      await load(mode);
      const samples: number[] = [];
      let jsGzip = 0;
      for (let i = 0; i < RUNS; i++) {
        const r = await load(mode);
        samples.push(r.ms);
        jsGzip = r.jsGzip;
      }
      samples.sort((a, b) => a - b);
      const f = (n: number) => Math.round(n).toLocaleString('en');
      console.log(
        `motion ${mode === 'reduce' ? 'reduced (no animation)' : 'default (animated)'}: navigation start to all ${WIDGETS} charts drawn p50 ${f(percentile(samples, 50))} ms, min ${f(samples[0]!)} ms, max ${f(samples[samples.length - 1]!)} ms; JavaScript loaded by the page ${jsGzip.toLocaleString('en')} bytes gzip`,
      );
    }
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    child.send({ stop: true });
    await new Promise((resolve) => child!.once('exit', resolve));
  } finally {
    await browser.close();
    if (child && child.exitCode === null) child.kill();
    await service.drop();
    await data.drop();
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!, process.argv[4]!);
else await main();
