/**
 * Where one page audit's time goes: the steps of the service's page visit timed one by one, in this process,
 * on the audit benchmark's site, through the service's own egress proxy and browser settings. Each variant
 * visits the same pages one at a time (no concurrency, so the steps do not blur into each other) and prints
 * the median of each step over the pages.
 *
 *   node bench/audit-steps.ts        (BENCH_PAGES=12 CHROMIUM_PATH=...)
 */
import axe from 'axe-core';
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext } from 'playwright-core';
import { BrowserHost } from '../src/audit/engine/browser-host.ts';
import { axeTagsFor } from '../src/audit/engine/axe-tags.ts';
import { createAddressPolicy } from '../src/kit/outbound/address-policy.ts';
import { openEgressProxy } from '../src/audit/safety/egress-proxy.ts';
import { serveSite } from './support/audit-site.ts';

const PAGES = Number(process.env.BENCH_PAGES ?? 12);
const TAGS = axeTagsFor('2.2', 'AA');
const OPTIONS = {
  runOnly: { type: 'tag' as const, values: TAGS },
  resultTypes: ['violations' as const, 'incomplete' as const],
};

type Steps = Record<string, number>;

async function timed<T>(steps: Steps, name: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await f();
  } finally {
    steps[name] = (steps[name] ?? 0) + performance.now() - t0;
  }
}

/** The service's visit as it was: load, network idle (Playwright's 500 ms without requests), 300 ms, AxeBuilder.analyze(). */
async function asFound(context: BrowserContext, url: string, steps: Steps): Promise<number> {
  const page = await timed(steps, 'new page', () => context.newPage());
  await timed(steps, 'goto (load)', () => page.goto(url, { waitUntil: 'load' }));
  await timed(steps, 'network idle', () => page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {}));
  await timed(steps, 'settle 300 ms', () => page.waitForTimeout(300));
  const r = await timed(steps, 'AxeBuilder.analyze', () => new AxeBuilder({ page }).options(OPTIONS).analyze());
  await timed(steps, 'close page', () => page.close());
  return r.violations.length;
}

/** The axe steps apart: inject the source, runPartial in the page, finishRun in a blank page (what analyze() does), against axe.run in the page. */
async function axeParts(context: BrowserContext, url: string, steps: Steps): Promise<number> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});
  await timed(steps, 'inject axe source', () => page.evaluate(axe.source));
  const partial = await timed(steps, 'axe.runPartial', () =>
    page.evaluate((o) => (globalThis as any).axe.runPartial({ include: [], exclude: [] }, o), OPTIONS),
  );
  const blank = await timed(steps, 'blank page for finishRun', () => context.newPage());
  await timed(steps, 'inject axe into blank page', () => blank.evaluate(axe.source));
  await timed(steps, 'axe.finishRun', () =>
    blank.evaluate(([p, o]) => (globalThis as any).axe.finishRun(p, o), [[partial], OPTIONS] as const),
  );
  await blank.close();
  const r = (await timed(steps, 'axe.run in the page (instead)', () =>
    page.evaluate((o) => (globalThis as any).axe.run((globalThis as any).document, o), OPTIONS),
  )) as { violations: unknown[] };
  await page.close();
  return r.violations.length;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function variant(
  name: string,
  host: BrowserHost,
  proxied: boolean,
  urls: string[],
  visit: (c: BrowserContext, u: string, s: Steps) => Promise<number>,
): Promise<void> {
  const proxy = await openEgressProxy(createAddressPolicy(['127.0.0.1']));
  const context = proxied ? await host.newContext(proxy.server) : await (await host.browser()).newContext();
  const perPage: Steps[] = [];
  const t0 = performance.now();
  for (const url of urls) {
    const steps: Steps = {};
    await timed(steps, 'total', () => visit(context, url, steps));
    perPage.push(steps);
  }
  const wall = performance.now() - t0;
  await context.close();
  await proxy.close();
  console.log(
    `\n${name}: ${urls.length} pages in ${(wall / 1000).toFixed(1)} s; median per page (ms), load average ${loadAverage()}`,
  );
  for (const step of Object.keys(perPage[0]!))
    console.log(
      `  ${step.padEnd(32)} ${median(perPage.map((s) => s[step] ?? 0))
        .toFixed(0)
        .padStart(6)}`,
    );
}

function loadAverage(): string {
  return (process.getBuiltinModule('node:fs').readFileSync('/proc/loadavg', 'utf8') as string)
    .split(' ')
    .slice(0, 3)
    .join(' ');
}

const site = await serveSite(Math.max(PAGES, 2));
const host = new BrowserHost({ info() {}, warn: console.warn } as never);
try {
  const urls = site.urls.slice(1, PAGES + 1);
  // A first page of warm-up, so Chromium's start and first compile are not counted.
  await variant('warm-up', host, true, urls.slice(0, 2), asFound);
  await variant('as found, through the egress proxy', host, true, urls, asFound);
  await variant('as found, direct (no proxy)', host, false, urls, asFound);
  await variant('axe steps apart, through the egress proxy', host, true, urls, axeParts);
} finally {
  await host.close();
  await site.close();
}
