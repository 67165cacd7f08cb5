import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';

// Run in the page by page.evaluate, where the DOM exists.
declare const document: any;
declare const location: any;

/**
 * A dashboard's time range beyond its presets: an absolute range typed as From and To (the person's time zone,
 * here Paris), carried in the address, and set by selecting a span on a time chart (zoom), with Reset zoom.
 */
describe('the dashboard web app: absolute time range and zoom', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let browser: Browser;
  let admin: SignedIn;
  let viewer: SignedIn;
  let dashboardId: number;
  let sourceId: number;
  const pages = pageOpener(() => browser);
  const definition = (range: Record<string, unknown>) => ({
    layout: { type: 'grid', columns: 12, rowHeight: 40 },
    dataSources: [{ id: sourceId }],
    parameters: [{ name: 'range', type: 'time_range', label: 'Time range', ...range }],
    widgets: [
      {
        id: 'sales',
        type: 'line',
        title: 'Sales',
        position: { x: 0, y: 0, w: 12, h: 7 },
        dataSourceId: sourceId,
        query: `SELECT day::timestamp AT TIME ZONE 'UTC' AS day, amount FROM daily
          WHERE day::timestamp AT TIME ZONE 'UTC' >= :range_from::timestamptz
            AND day::timestamp AT TIME ZONE 'UTC' < :range_to::timestamptz ORDER BY day`,
      },
      {
        id: 'daily-bars',
        type: 'bar',
        title: 'Daily bars',
        position: { x: 0, y: 7, w: 12, h: 7 },
        dataSourceId: sourceId,
        query: `SELECT day::text AS day, amount FROM daily
          WHERE day::timestamp AT TIME ZONE 'UTC' >= :range_from::timestamptz
            AND day::timestamp AT TIME ZONE 'UTC' < :range_to::timestamptz ORDER BY day`,
      },
    ],
  });

  before(async () => {
    target = await freshPostgres('webtimerange');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE daily (day date PRIMARY KEY, amount int NOT NULL);
      INSERT INTO daily SELECT DATE '2026-01-01' + g, 100 + (g * 37) % 90 FROM generate_series(0, 29) g;`);
    await c.end();
    s = await startDashboard('dashwebtimerange');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    sourceId = ds.body.id;
    // The 30 days of January 2026 lie within the last 365 days of now (the test runs after them).
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: { slug: 'sales', title: 'Sales over time', definition: definition({ default: '365d' }) },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    dashboardId = d.body.id;
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  afterEach(() => pages.closeAll());
  after(async () => {
    await browser?.close();
    await s?.close();
    await target?.drop();
  });

  /** Both charts drawn with `n` points each. */
  const points = (page: Page, n: number) =>
    page.waitForFunction(
      (want) => {
        const drawn = [...document.querySelectorAll('.chart[data-drawn="true"]')];
        return drawn.length === 2 && drawn.every((el: any) => Number(el.dataset.points) === want);
      },
      n,
      { timeout: 20_000 },
    );
  const rangeInAddress = (page: Page) =>
    page.evaluate(() => new URLSearchParams(location.search).get('var-range') as string | null);

  test('an absolute range is a default the service checks: from before to, instants with their zone', async () => {
    for (const [range, message] of [
      ['2026-01-10T00:00:00Z/2026-01-05T00:00:00Z', /starts before it ends/],
      ['2026-01-05/2026-01-10', /absolute range "<from>\/<to>"/],
      ['2026-01-05T00:00:00/2026-01-10T00:00:00', /with their zone/],
    ] as const) {
      const r = await s.request('POST', '/api/v1/dashboards', {
        as: admin,
        body: { slug: 'bad-range', title: 'Bad', definition: definition({ default: range }) },
      });
      assert.equal(r.status, 400, range);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, /parameters\[0\]\.default: a time range is/);
      assert.match(r.body.error.message, message);
    }
    const ok = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: {
        slug: 'fixed-range',
        title: 'Fixed',
        definition: definition({ default: '2026-01-05T00:00:00Z/2026-01-15T00:00:00+01:00' }),
      },
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  test('From and To set an absolute range (checked, in the address), Reset zoom goes back to the preset', async () => {
    const page = await pages.open(viewer, { timezoneId: 'Europe/Paris' });
    await page.goto(`${s.url}/dashboards/${dashboardId}?var-range=2026-01-05T00:00:00.000Z/2026-01-15T00:00:00.000Z`);
    await page.getByRole('heading', { level: 1, name: 'Sales over time' }).waitFor();
    await points(page, 10);
    // Midnight UTC is 1 AM in Paris in January.
    assert.equal(await page.getByLabel('From', { exact: true }).inputValue(), '2026-01-05T01:00');
    assert.equal(await page.getByLabel('To', { exact: true }).inputValue(), '2026-01-15T01:00');
    await screenshot(page, 'time-range-absolute', { fullPage: false });

    await page.getByRole('button', { name: /Reset zoom/ }).click();
    await points(page, 30);
    assert.equal(await rangeInAddress(page), '365d');
    assert.equal(await page.getByLabel('Time range', { exact: true }).inputValue(), '365d');

    // An inverted range is said next to the field and not applied.
    const from = page.getByLabel('From', { exact: true });
    const to = page.getByLabel('To', { exact: true });
    await from.fill('2026-01-10T01:00');
    await to.fill('2026-01-05T01:00');
    await page.getByRole('button', { name: 'Apply range' }).click();
    const error = page.locator('#param-range-to-error');
    assert.equal(await error.innerText(), 'To must be later than From.');
    assert.equal(await to.getAttribute('aria-invalid'), 'true');
    assert.equal(await to.getAttribute('aria-describedby'), 'param-range-to-error');
    assert.equal(await rangeInAddress(page), '365d');
    await assertAccessible(page, 'time range with an error');
    await screenshot(page, 'time-range-error', { fullPage: false });

    // Keyboard: type the end again and press Enter.
    await to.fill('2026-01-20T01:00');
    await to.press('Enter');
    await points(page, 10);
    assert.equal(await rangeInAddress(page), '2026-01-10T00:00:00.000Z/2026-01-20T00:00:00.000Z');
    assert.equal(await error.count(), 0);
    const reset = page.getByRole('button', { name: /Reset zoom/ });
    await reset.focus();
    await page.keyboard.press('Enter');
    await points(page, 30);
  });

  test('selecting a span on a time chart zooms the dashboard to it', async () => {
    const page = await pages.open(viewer, { timezoneId: 'Europe/Paris' });
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await points(page, 30);
    const chart = page.getByRole('img', { name: /: Sales\./ });
    assert.equal(await chart.getAttribute('data-zoomable'), 'true');
    assert.match((await chart.getAttribute('aria-label'))!, /Drag across the chart to zoom/);
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.35, box.y + box.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.65, box.y + box.height * 0.5, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => /\//.test(new URLSearchParams(location.search).get('var-range') ?? ''), null, {
      timeout: 20_000,
    });
    const [from, to] = (await rangeInAddress(page))!.split('/').map((t) => Date.parse(t));
    assert.ok(from! >= Date.parse('2026-01-02') && to! <= Date.parse('2026-01-30'), `${from}..${to} within January`);
    assert.ok(to! - from! < 20 * 86_400_000, 'a part of the month');
    assert.equal(from! % 60_000, 0, 'to the minute, as From shows it');
    await page.waitForFunction(
      () => {
        const drawn = [...document.querySelectorAll('.chart[data-drawn="true"]')];
        return drawn.length === 2 && drawn.every((el: any) => el.dataset.points > 0 && el.dataset.points < 20);
      },
      null,
      { timeout: 20_000 },
    );
    assert.notEqual(await page.getByLabel('From', { exact: true }).inputValue(), '');
    const reset = page.getByRole('button', { name: /Reset zoom/ });
    assert.match(await reset.innerText(), /last 365 days/);

    await assertAccessible(page, 'zoomed');
    await screenshot(page, 'time-range-zoomed', { fullPage: false });
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'zoomed (dark)');
    await screenshot(page, 'time-range-zoomed-dark', { fullPage: false });
    await page.setViewportSize({ width: 320, height: 800 });
    await assertAccessible(page, 'zoomed (320 px)');
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= 320),
      `no sideways scrolling at 320 px: ${await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e: any) => e.getBoundingClientRect().right > 321)
          .slice(0, 8)
          .map((e: any) => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`)
          .join(', '),
      )}`,
    );
    await screenshot(page, 'time-range-320');
    await reset.click();
    await points(page, 30);
  });

  test('selecting bars of dates zooms to whole days, from the first bar to the day after the last', async () => {
    const page = await pages.open(viewer, { timezoneId: 'Europe/Paris' });
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await points(page, 30);
    const chart = page.getByRole('img', { name: /: Daily bars\./ });
    assert.equal(await chart.getAttribute('data-zoomable'), 'true');
    await chart.scrollIntoViewIfNeeded();
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 10 });
    await page.mouse.up();
    await page.waitForFunction(() => /\//.test(new URLSearchParams(location.search).get('var-range') ?? ''), null, {
      timeout: 20_000,
    });
    const [from, to] = (await rangeInAddress(page))!.split('/').map((t) => Date.parse(t));
    assert.equal(from! % 86_400_000, 0, 'from the day of the first bar');
    assert.equal(to! % 86_400_000, 0, 'to the day after the last bar');
    const days = (to! - from!) / 86_400_000;
    assert.ok(days >= 5 && days <= 15, `about a third of the month: ${days} days`);
    await points(page, days);
  });
});
