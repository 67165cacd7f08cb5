/**
 * One very large page (BENCH_ELEMENTS, default 20,000 elements: a product list with the usual mistakes, a few
 * thousand failing elements) audited by the service's engine in this process, through its egress proxy, with
 * and without the per-rule cap on described elements (AUDIT_MAX_ELEMENTS_PER_RULE). Prints where the time goes:
 * navigation, axe (its run and its answer through the browser protocol), the whole audit (the page visit with the
 * service's settling, and assembling the result), serialising the result and storing it in PostgreSQL as jsonb.
 *
 *   node bench/audit-big-page.ts   (BENCH_ELEMENTS=20000 BENCH_CAP=100 BENCH_POSTGRES_URL=postgres://... CHROMIUM_PATH=...)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { BrowserHost } from '../src/audit/engine/browser-host.ts';
import { runAudit } from '../src/audit/engine/auditor.ts';
import { axeTagsFor } from '../src/audit/engine/axe-tags.ts';
import { AxeRunner } from '../src/audit/engine/axe-runner.ts';
import { resolveConfig } from '../src/audit/request/resolve.ts';
import { createAddressPolicy } from '../src/kit/outbound/address-policy.ts';
import { openEgressProxy } from '../src/audit/safety/egress-proxy.ts';

const ELEMENTS = Number(process.env.BENCH_ELEMENTS ?? 20_000);
const CAP = Number(process.env.BENCH_CAP ?? 100);
const NO_CAP = Number.MAX_SAFE_INTEGER;

// Seven elements a card (li, a, img, h3, p, p, button); one image in 7 without alt, one text in 11 faint.
function card(i: number): string {
  return `<li class="card"><a href="/item-${i}"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="96" height="96"${i % 7 === 0 ? '' : ` alt="Shoe ${i}"`}></a><h3>Model ${i}</h3><p${i % 11 === 0 ? ' class="faint"' : ''}>Light and grippy.</p><p class="price">$${i}</p><button type="button">Add</button></li>`;
}
const cards = Math.ceil(ELEMENTS / 7);
const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Every shoe</title><style>.faint{color:#aaa}</style></head><body><main><h1>Every shoe</h1><ul>${Array.from({ length: cards }, (_, i) => card(i)).join('')}</ul></main></body></html>`;

const server = createServer(
  (_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html),
);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const host = new BrowserHost({ info() {}, warn: console.warn, error: console.error } as never);
const policy = createAddressPolicy(['127.0.0.1']);
const tags = axeTagsFor('2.2', 'AA');
const loadAverage = () =>
  (process.getBuiltinModule('node:fs').readFileSync('/proc/loadavg', 'utf8') as string)
    .split(' ')
    .slice(0, 3)
    .join(' ');
const ms = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/** The page's steps apart, in one context through the egress proxy: navigation, axe inside the page, axe with its answer. */
async function steps(cap: number): Promise<void> {
  const proxy = await openEgressProxy(policy);
  const context = await host.newContext(proxy.server);
  try {
    const page = await context.newPage();
    let t0 = performance.now();
    await page.goto(url, { waitUntil: 'load', timeout: 0 });
    const navigation = ms(t0);
    const elements = await page.evaluate(
      () =>
        (
          globalThis as unknown as { document: { getElementsByTagName(n: string): { length: number } } }
        ).document.getElementsByTagName('*').length,
    );
    const runner = new AxeRunner(context);
    t0 = performance.now();
    const results = await runner.run(
      page,
      { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations', 'incomplete'] },
      cap,
    );
    const axeWithAnswer = ms(t0);
    const described =
      results.violations.reduce((n, r) => n + r.nodes.length, 0) +
      results.incomplete.reduce((n, r) => n + r.nodes.length, 0);
    const left = results.omitted.reduce(
      (n, o) => n + Object.values(o.violations).reduce((a, b) => a + (b ?? 0), 0) + o.incomplete,
      0,
    );
    console.log(
      `  ${elements} elements; navigation (load) ${navigation}; axe run and its answer ${axeWithAnswer}; ${described} elements described, ${left} counted only`,
    );
    await runner.close();
  } finally {
    await context.close();
    await proxy.close();
  }
}

/** The service's whole audit of the page, then what happens to its result: JSON and the job row's UPDATE. */
async function audit(cap: number, sql: pg.Client | null): Promise<void> {
  const config = resolveConfig({}, { defaultVersion: '2.2', defaultLevel: 'AA', maxDepth: 5, maxPages: 100 });
  let t0 = performance.now();
  const result = await runAudit(url, config, {
    host,
    policy,
    timing: { timeoutMs: 600_000, networkIdleMs: 5_000, settleMs: 300 },
    pageConcurrency: 4,
    maxElementsPerRule: cap,
  });
  const whole = ms(t0);
  t0 = performance.now();
  const json = JSON.stringify(result);
  const serialise = ms(t0);
  let store = 'not measured (no PostgreSQL)';
  if (sql) {
    t0 = performance.now();
    await sql.query('INSERT INTO bench_results (result) VALUES ($1)', [json]);
    store = ms(t0);
  }
  console.log(
    `  audit ${whole} (page ${(result.pages[0]!.durationMs / 1000).toFixed(1)} s, status ${result.pages[0]!.status}${result.pages[0]!.error ? `: ${result.pages[0]!.error}` : ''}); ${result.stats.totalFindings} failing elements, ${result.findings.length} listed; result ${(json.length / 1e6).toFixed(2)} MB, JSON.stringify ${serialise}, stored (jsonb) ${store}`,
  );
}

let sql: pg.Client | null = new pg.Client({
  connectionString:
    process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
});
try {
  await sql.connect();
  await sql.query('CREATE TEMP TABLE bench_results (result jsonb)');
} catch {
  sql = null;
}
try {
  console.log(
    `page of ${ELEMENTS} elements (${(html.length / 1e6).toFixed(2)} MB of HTML); load average ${loadAverage()}`,
  );
  await steps(CAP); // warm-up: Chromium's start and axe's first compile
  for (const [name, cap] of [
    [`capped at ${CAP} elements per rule`, CAP],
    ['not capped', NO_CAP],
  ] as const) {
    console.log(`\n${name} (load average ${loadAverage()}):`);
    await steps(cap);
    await audit(cap, sql);
  }
} finally {
  await sql?.end();
  await host.close();
  server.close();
}
