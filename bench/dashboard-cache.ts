/**
 * Dashboard load with and without the widgets' result cache (issue 28). A "load" is what the web app does when a
 * dashboard opens: every widget's run sent at once, over HTTP, waiting for the last answer. The same six widgets
 * (aggregates over 300,000 rows of a real PostgreSQL table) are on two dashboards: one with no cache time, one with
 * `cacheSeconds: 600`. The two are loaded alternately, load by load, so both see the same machine. A last phase opens
 * the uncached dashboard for eight viewers at the same instant and counts the trips the single flight saved.
 *
 *   node bench/dashboard-cache.ts            (BENCH_LOADS=20 measured after BENCH_WARMUP=3, per dashboard)
 */
import { percentile } from './support/connection.ts';

const LOADS = Number(process.env.BENCH_LOADS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const VIEWERS = 8;

const SETUP = `
  CREATE TABLE events (id integer PRIMARY KEY, kind text NOT NULL, country text NOT NULL, amount numeric(10,2) NOT NULL, at timestamptz NOT NULL);
  INSERT INTO events
  SELECT g, (ARRAY['view','click','buy','error'])[1 + g % 4], (ARRAY['FR','ES','JP','US','BR','DE'])[1 + g % 6],
         (g % 500) / 7.0, '2026-01-01T00:00:00Z'::timestamptz + g * interval '1 minute'
    FROM generate_series(1, 300000) g;
  ANALYZE events;`;

const WIDGETS = [
  'SELECT kind, count(*) AS n FROM events GROUP BY kind ORDER BY kind',
  'SELECT country, sum(amount) AS revenue FROM events GROUP BY country ORDER BY country',
  "SELECT date_trunc('day', at) AS day, count(*) AS n FROM events GROUP BY 1 ORDER BY 1",
  'SELECT count(DISTINCT country || kind) AS pairs FROM events',
  "SELECT kind, avg(amount) AS mean FROM events WHERE country = 'FR' GROUP BY kind ORDER BY kind",
  "SELECT date_trunc('week', at) AS week, sum(amount) AS revenue FROM events GROUP BY 1 ORDER BY 1",
];

interface Summary {
  p50: number;
  mean: number;
  p95: number;
}
const summarise = (samples: number[]): Summary => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    p95: percentile(sorted, 95),
  };
};

async function main(): Promise<void> {
  const { startDashboard } = await import('../test/dashboard/harness.ts');
  const { freshPostgres } = await import('../test/support/postgres.ts');
  const pg = (await import('pg')).default;
  const data = await freshPostgres('bench_cache_data');
  const s = await startDashboard('bench_cache');
  try {
    const c = new pg.Client({ connectionString: data.url });
    await c.connect();
    await c.query(SETUP);
    await c.end();
    const admin = await s.signIn({ tenant: 'bench', role: 'admin' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Events', slug: 'events', type: 'postgres', connectionUrl: data.url, maxConnections: 10 },
    });
    if (ds.status !== 201) throw new Error(JSON.stringify(ds.body));
    const board = async (slug: string, cacheSeconds: number) => {
      const widgets = WIDGETS.map((query, i) => ({
        id: `w${i + 1}`,
        type: 'table',
        position: { x: (i % 2) * 6, y: Math.floor(i / 2) * 4, w: 6, h: 4 },
        dataSourceId: ds.body.id,
        query,
        ...(cacheSeconds ? { cacheSeconds } : {}),
      }));
      const definition = {
        layout: { type: 'grid', columns: 12, rowHeight: 40 },
        dataSources: [{ id: ds.body.id }],
        widgets,
      };
      const r = await s.request('POST', '/api/v1/dashboards', { as: admin, body: { slug, title: slug, definition } });
      if (r.status !== 201) throw new Error(JSON.stringify(r.body));
      return r.body.id as number;
    };
    const uncached = await board('uncached', 0);
    const cached = await board('cached', 600);
    const viewers = await Promise.all(
      Array.from({ length: VIEWERS }, (_, i) =>
        s.signIn({ tenant: 'bench', role: 'viewer', email: `viewer${i}@bench.example` }),
      ),
    );
    const served = { database: 0, shared: 0, cache: 0 } as Record<string, number>;
    const load = async (id: number, headers: Record<string, string>) => {
      const t = performance.now();
      await Promise.all(
        WIDGETS.map(async (_, i) => {
          const r = await fetch(`${s.url}/api/v1/dashboards/${id}/widgets/w${i + 1}/run`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: '{}',
          });
          if (r.status !== 200) throw new Error(`${r.status} ${await r.text()}`);
          served[((await r.json()) as { served: string }).served]!++;
        }),
      );
      return performance.now() - t;
    };

    const samples: [number[], number[]] = [[], []];
    for (let i = 0; i < WARMUP + LOADS; i++) {
      const a = await load(uncached, admin.headers);
      const b = await load(cached, admin.headers);
      if (i >= WARMUP) {
        samples[0].push(a);
        samples[1].push(b);
      }
    }
    const counted = { ...served };
    const [u, k] = [summarise(samples[0]), summarise(samples[1])];
    const ms = (x: number) => `${x.toFixed(1)} ms`;
    console.log(
      `dashboard of ${WIDGETS.length} widgets over 300,000 rows, ${LOADS} loads each after ${WARMUP} warm-up`,
    );
    console.log(`  no cache      p50 ${ms(u.p50)}  mean ${ms(u.mean)}  p95 ${ms(u.p95)}`);
    console.log(`  cacheSeconds  p50 ${ms(k.p50)}  mean ${ms(k.mean)}  p95 ${ms(k.p95)}`);
    console.log(`  uncached / cached p50: ${(u.p50 / k.p50).toFixed(1)}x`);
    console.log(`  widget runs answered by: ${JSON.stringify(counted)}`);

    for (const key of Object.keys(served)) served[key] = 0;
    const t = performance.now();
    await Promise.all(viewers.map((v) => load(uncached, v.headers)));
    const together = performance.now() - t;
    console.log(
      `${VIEWERS} viewers open the uncached dashboard at once: ${ms(together)}; ${VIEWERS * WIDGETS.length} runs answered by ${JSON.stringify(served)}`,
    );
    console.log(
      `load average ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await s.close();
    await data.drop();
  }
}

await main();
