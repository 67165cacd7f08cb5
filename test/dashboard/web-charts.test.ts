import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { contrast, assertFocusRing } from '../support/focus-ring.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { PALETTE } from '../../web/dashboard/src/widgets/chartOption.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';

// Run in the page by page.evaluate, where the DOM exists.
declare const document: any;

/** Until `count` charts are drawn at the viewport's present size (a resize redraws). */
const chartsDrawn = (page: Page, count: number) =>
  page.waitForFunction(
    (n) =>
      [...document.querySelectorAll('.chart')].filter(
        (el: any) => el.dataset.drawn === 'true' && el.querySelector('canvas')?.clientWidth === el.clientWidth,
      ).length === n,
    count,
    { timeout: 20_000 },
  );

/** The chart widget whose canvas is named by this title. */
const widgetTitled = (page: Page, title: string) =>
  page.locator('.chart-widget', { has: page.getByRole('img', { name: new RegExp(`: ${title}\\.`) }) });

/** Each kind of chart drawn in Chromium from a real PostgreSQL source: ECharts holds its points and the canvas is painted. */
describe('the dashboard web app: chart kinds', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let browser: Browser;
  let viewer: SignedIn;
  let dashboardId: number;
  let sourceId: number;
  const pages = pageOpener(() => browser);
  const KINDS: [string, string, string][] = [
    ['area', 'Area', 'SELECT day::text AS day, amount FROM daily ORDER BY day'],
    ['area_stacked', 'Stacked areas', 'SELECT day::text AS day, amount, refunds FROM daily ORDER BY day'],
    ['bar_stacked', 'Stacked bars', 'SELECT region, amount, refunds FROM regions ORDER BY region'],
    ['bar_horizontal', 'Horizontal bars', 'SELECT region, amount FROM regions ORDER BY amount DESC'],
    ['scatter', 'Scatter', 'SELECT amount, refunds FROM daily ORDER BY day'],
    ['gauge', 'Gauge', 'SELECT 73 AS score'],
    ['heatmap', 'Heatmap', 'SELECT hour, weekday, hits FROM activity ORDER BY day_no, hour'],
  ];

  before(async () => {
    target = await freshPostgres('webcharts');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE daily (day date PRIMARY KEY, amount int NOT NULL, refunds int NOT NULL);
      INSERT INTO daily SELECT DATE '2026-01-01' + g, 100 + (g * 37) % 90, (g * 13) % 20 FROM generate_series(0, 29) g;
      CREATE TABLE regions (region text PRIMARY KEY, amount int NOT NULL, refunds int NOT NULL);
      INSERT INTO regions VALUES ('north', 120, 10), ('south', 90, 25), ('east', 150, 5), ('west', 60, 15);
      CREATE TABLE activity (day_no int, weekday text, hour text, hits int NOT NULL, PRIMARY KEY (day_no, hour));
      INSERT INTO activity SELECT d, (ARRAY['Mon', 'Tue', 'Wed'])[d], lpad(h::text, 2, '0') || ':00', (d * 7 + h * 11) % 40
        FROM generate_series(1, 3) d, generate_series(8, 11) h;`);
    await c.end();
    s = await startDashboard('dashwebcharts');
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    sourceId = ds.body.id;
    const widgets: Record<string, unknown>[] = KINDS.map(([type, title, query], i) => ({
      id: type.replace('_', '-'),
      type,
      title,
      position: { x: (i % 2) * 6, y: Math.floor(i / 2) * 6, w: 6, h: 6 },
      dataSourceId: ds.body.id,
      query,
    }));
    widgets.push(
      {
        id: 'two-axes',
        type: 'bar',
        title: 'Two axes',
        position: { x: 0, y: 24, w: 6, h: 6 },
        dataSourceId: ds.body.id,
        query: 'SELECT region, amount, refunds FROM regions ORDER BY region',
        options: { y2: ['refunds'], format: 'currency', currency: 'EUR' },
      },
      {
        id: 'formats',
        type: 'table',
        title: 'Formats',
        position: { x: 6, y: 24, w: 6, h: 6 },
        dataSourceId: ds.body.id,
        query: `SELECT region, amount, refunds / 100.0 AS share, amount * 1024 AS size, amount * 60 AS took,
          TIMESTAMPTZ '2026-03-01 12:00:00+00' AS at FROM regions ORDER BY region`,
        options: {
          formats: { amount: 'currency', share: 'percent', size: 'bytes', took: 'duration', at: 'datetime' },
          currency: 'EUR',
          timeZone: 'Asia/Tokyo',
        },
      },
    );
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: {
        slug: 'kinds',
        title: 'Chart kinds',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 40 },
          dataSources: [{ id: ds.body.id }],
          widgets,
        },
      },
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

  test('a row category is a heatmap setting: elsewhere or not a name, the definition is refused', async () => {
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    const widget = (type: string, yCategory: unknown) => ({
      slug: `bad-${type}`,
      title: 'Bad',
      definition: {
        layout: { type: 'grid', columns: 12, rowHeight: 40 },
        dataSources: [],
        widgets: [{ id: 'w', type, position: { x: 0, y: 0, w: 6, h: 6 }, options: { yCategory } }],
      },
    });
    const onBar = await s.request('POST', '/api/v1/dashboards', { as: admin, body: widget('bar', 'weekday') });
    assert.equal(onBar.status, 400);
    assert.match(JSON.stringify(onBar.body), /widgets\[0\]\.options\.yCategory: only a heatmap has a row category/);
    const notName = await s.request('POST', '/api/v1/dashboards', { as: admin, body: widget('heatmap', 7) });
    assert.equal(notName.status, 400);
    assert.match(JSON.stringify(notName.body), /yCategory: the name of a column/);
  });

  test('area, stacked areas, stacked and horizontal bars, scatter, gauge, heatmap, a second axis and formatted, sortable tables', async () => {
    const page = await pages.open(viewer);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('heading', { level: 1, name: 'Chart kinds' }).waitFor();
    await page.waitForFunction(
      (n) => document.querySelectorAll('.chart[data-drawn="true"] canvas').length >= n,
      KINDS.length + 1,
      { timeout: 20_000 },
    );
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll('.chart')].map((el: any) => {
        const c = el.querySelector('canvas');
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
        return { name: el.getAttribute('aria-label') as string, points: Number(el.dataset.points), painted };
      }),
    );
    const expected: Record<string, number> = {
      Area: 30,
      'Stacked areas': 60,
      'Stacked bars': 8,
      'Horizontal bars': 4,
      Scatter: 30,
      Gauge: 1,
      Heatmap: 12,
    };
    for (const [, title] of KINDS) {
      const chart = drawn.find((c) => c.name.includes(`: ${title}.`));
      assert.ok(chart, `${title} is drawn: ${JSON.stringify(drawn.map((c) => c.name))}`);
      assert.equal(chart.points, expected[title], `${title}: the points ECharts holds`);
      assert.ok(chart.painted > 1500, `${title}: the canvas is painted (${chart.painted})`);
    }
    assert.match(
      (await page.getByRole('img', { name: /: Heatmap\./ }).getAttribute('aria-label'))!,
      /hits by hour and weekday, 12 rows/,
    );
    // The heatmap's text alternative: its rows as a table, from the same button as every chart's.
    const heatmap = page.locator('.chart-widget', { has: page.getByRole('img', { name: /: Heatmap\./ }) });
    await heatmap.getByRole('button', { name: 'Show data table' }).click();
    const heatTable = page.getByRole('region', { name: 'Heatmap data' });
    assert.deepEqual(await heatTable.locator('thead th').allInnerTexts(), ['hour', 'weekday', 'hits']);
    assert.equal(await heatTable.locator('tbody tr').count(), 10, 'the first page of its 12 rows');
    await page.getByRole('button', { name: 'Show chart' }).click();
    await page
      .getByRole('img', { name: /: Heatmap\./ })
      .and(page.locator('[data-drawn="true"]'))
      .waitFor();
    const twoAxes = page.getByRole('img', { name: /: Two axes\./ });
    assert.equal(await twoAxes.getAttribute('data-value-axes'), '2', 'refunds on a second axis, on the right');
    assert.equal(await twoAxes.getAttribute('data-points'), '8');

    // A table writes each column in its format, and sorts by a column from its header (keyboard too).
    const table = page.getByRole('region', { name: 'Formats data' });
    const firstRow = () => table.locator('tbody tr').first().locator('td').allInnerTexts();
    const east = await firstRow();
    assert.equal(east[0], 'east');
    assert.match(east[1]!, /€150\.00/);
    assert.equal(east[2], '5%');
    assert.equal(east[3], '150 KiB');
    assert.equal(east[4], '2 h 30 min');
    assert.match(east[5]!, /Mar 1, 2026.*9:00\s?PM/, 'noon UTC is 9 PM in Tokyo');
    const amount = table.getByRole('button', { name: 'amount' });
    await amount.focus();
    await page.keyboard.press('Enter');
    assert.equal(await table.locator('th').nth(1).getAttribute('aria-sort'), 'ascending');
    assert.equal((await firstRow())[0], 'west');
    await page.keyboard.press('Enter');
    assert.equal(await table.locator('th').nth(1).getAttribute('aria-sort'), 'descending');
    assert.equal((await firstRow())[0], 'east');

    await assertAccessible(page, 'chart kinds');
    await screenshot(page, 'charts-kinds');
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'chart kinds (dark)');
    await screenshot(page, 'charts-kinds-dark');
    await page.setViewportSize({ width: 320, height: 800 });
    await assertAccessible(page, 'chart kinds (320 px)');
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= 320),
      'no sideways scrolling at 320 px',
    );
    await screenshot(page, 'charts-kinds-320');
  });
  test("a chart's legend is a list under its canvas: buttons that hide and show series, by keyboard too, and it reflows at 320 px", async () => {
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    const SERIES = ['gross sales', 'refunds', 'net sales', 'average order'];
    const SLICES = Array.from({ length: 8 }, (_, i) => `region ${i + 1}`);
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: {
        slug: 'legend',
        title: 'Legend',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 40 },
          dataSources: [{ id: sourceId }],
          widgets: [
            {
              id: 'sales',
              type: 'line',
              title: 'Sales',
              position: { x: 0, y: 0, w: 6, h: 8 },
              dataSourceId: sourceId,
              query: `SELECT day::text AS day, amount AS "gross sales", refunds, amount - refunds AS "net sales",
                amount / 3 AS "average order" FROM daily ORDER BY day`,
            },
            {
              id: 'share',
              type: 'pie',
              title: 'Share',
              position: { x: 6, y: 0, w: 6, h: 8 },
              dataSourceId: sourceId,
              // Eight slices: more than the palette's first six colours, fewer than its ten.
              query: `SELECT 'region ' || g AS region, 10 + g * 5 AS amount FROM generate_series(1, 8) g`,
            },
          ],
        },
      },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    const page = await pages.open(viewer);
    await page.goto(`${s.url}/dashboards/${d.body.id}`);
    const drawn = () => chartsDrawn(page, 2);
    await drawn();
    const widget = (title: string) => widgetTitled(page, title);
    const sales = widget('Sales');
    const share = widget('Share');
    const salesChart = sales.getByRole('img');
    const legendOf = (w: Locator) => w.getByRole('list', { name: 'Legend' });
    assert.deepEqual(await legendOf(sales).getByRole('button').allInnerTexts(), SERIES);
    assert.deepEqual(
      await legendOf(share).getByRole('button').allInnerTexts(),
      SLICES,
      'every slice, past the palette',
    );
    for (const b of await page.locator('.chart-legend button').all()) {
      assert.equal(await b.getAttribute('type'), 'button');
      assert.equal(await b.getAttribute('aria-pressed'), 'true', 'every series shown');
    }
    const hiddenOf = async (chart: Locator) => JSON.parse((await chart.getAttribute('data-hidden')) ?? 'null');
    const hidden = (chart: Locator, names: string[]) =>
      chart.and(page.locator(`[data-drawn="true"][data-hidden='${JSON.stringify(names)}']`)).waitFor();
    // The canvas pixels painted exactly in a series' colour (its line's middle): none once it is hidden.
    const pixels = (chart: Locator, hex: string) =>
      chart.evaluate(
        (el: any, rgb: number[]) => {
          const c = el.querySelector('canvas');
          const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 0; i < data.length; i += 4)
            if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) n++;
          return n;
        },
        [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)),
      );
    // Each swatch's outline stands 3:1 against the widget's background, in the series' own colour.
    const swatchesStand = async (theme: 'light' | 'dark') => {
      const colours = await legendOf(sales)
        .locator('svg g')
        .evaluateAll((gs: any[]) => gs.map((g) => getComputedStyle(g).stroke as string));
      const rgb = (hex: string) =>
        `rgb(${[1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;
      assert.deepEqual(colours, PALETTE[theme].slice(0, 4).map(rgb), `${theme}: the series' colours`);
      const background = await sales.evaluate((el: any) => getComputedStyle(el.closest('.widget')).backgroundColor);
      for (const c of colours) assert.ok(contrast(c, background) >= 3, `${theme}: ${c} on ${background}`);
    };
    await swatchesStand('light');
    const first = legendOf(sales).getByRole('button', { name: 'gross sales' });
    await assertFocusRing(page, first, { className: 'error' }, 'chart-legend-light');
    await first.blur();

    // Keyboard: Tab goes through the page to the first entry; Space hides its series, Enter shows it again.
    assert.ok((await pixels(salesChart, PALETTE.light[0])) > 20, 'gross sales is drawn');
    const focused = () => first.evaluate((el: any) => el === document.activeElement);
    for (let tabs = 0; tabs < 40 && !(await focused()); tabs++) await page.keyboard.press('Tab');
    assert.equal(await focused(), true, 'Tab reaches the legend');
    await page.keyboard.press('Space');
    await hidden(salesChart, ['gross sales']);
    assert.equal(await first.getAttribute('aria-pressed'), 'false');
    // Not by colour alone: the name struck through, the swatch hollow (the page's background inside its outline).
    const looks = () =>
      first.evaluate((el: any) => ({
        text: getComputedStyle(el).textDecorationLine as string,
        fill: getComputedStyle(el.querySelector('svg g')).fill as string,
        page: getComputedStyle(document.body).backgroundColor as string,
      }));
    const off = await looks();
    assert.match(off.text, /line-through/);
    assert.equal(off.fill, off.page, 'a hollow swatch');
    assert.equal(await pixels(salesChart, PALETTE.light[0]), 0, 'gross sales is no longer drawn');
    assert.ok((await pixels(salesChart, PALETTE.light[1])) > 20, 'refunds still is');
    await assertAccessible(page, 'chart legend');
    await screenshot(page, 'charts-legend');

    // The selection outlives a redraw of the same series (here in the dark theme's colours).
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.chart-legend svg g')).stroke === 'rgb(138, 180, 248)',
    );
    await drawn();
    assert.deepEqual(await hiddenOf(salesChart), ['gross sales'], 'still hidden after the redraw');
    assert.equal(await first.getAttribute('aria-pressed'), 'false');
    assert.equal(await pixels(salesChart, PALETTE.dark[0]), 0, 'gross sales is not drawn');
    assert.ok((await pixels(salesChart, PALETTE.dark[1])) > 20, 'drawn in the dark palette');
    await swatchesStand('dark');
    await assertFocusRing(page, first, { className: 'error' }, 'chart-legend-dark');
    await page.keyboard.press('Enter');
    await hidden(salesChart, []);
    assert.equal(await first.getAttribute('aria-pressed'), 'true');
    const on = await looks();
    assert.doesNotMatch(on.text, /line-through/);
    assert.notEqual(on.fill, on.page, 'a filled swatch');
    assert.ok((await pixels(salesChart, PALETTE.dark[0])) > 20, 'gross sales is drawn again');

    // A mouse hides a series, and a pie's slice.
    await legendOf(sales).getByRole('button', { name: 'refunds' }).click();
    await hidden(salesChart, ['refunds']);
    await legendOf(share).getByRole('button', { name: 'region 2' }).click();
    await hidden(share.getByRole('img'), ['region 2']);
    await assertAccessible(page, 'chart legend (dark)');
    await screenshot(page, 'charts-legend-dark');

    // At 320 px each legend wraps under its canvas, never over it, and the page does not scroll sideways.
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 320, height: 800 });
      await drawn();
      for (const w of [sales, share]) {
        const [canvas, key] = await Promise.all([w.locator('canvas').boundingBox(), legendOf(w).boundingBox()]);
        assert.ok(canvas && key, 'both on screen');
        const overlap =
          key.x < canvas.x + canvas.width &&
          canvas.x < key.x + key.width &&
          key.y < canvas.y + canvas.height &&
          canvas.y < key.y + key.height;
        assert.ok(
          !overlap,
          `${scheme}, 320 px: the legend ${JSON.stringify(key)} is off the canvas ${JSON.stringify(canvas)}`,
        );
        assert.ok(key.x + key.width <= 320, `${scheme}, 320 px: the legend is within the screen`);
      }
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320), 'no sideways scrolling');
      await assertAccessible(page, `chart legend (${scheme}, 320 px)`);
      await screenshot(page, `charts-legend-320-${scheme}`);
    }
  });
  test('a pie of twelve slices draws ten, each in its own colour: the three smallest are one, "Other", which its legend hides', async () => {
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    const SERIES = Array.from({ length: 12 }, (_, i) => `series ${i + 1}`);
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: {
        slug: 'many-slices',
        title: 'Many slices',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 40 },
          dataSources: [{ id: sourceId }],
          widgets: [
            {
              id: 'regions',
              type: 'pie',
              title: 'Regions',
              position: { x: 0, y: 0, w: 6, h: 10 },
              dataSourceId: sourceId,
              // region 1 is the largest, region 12 the smallest: 10, 11 and 12 make "Other" (30 + 20 + 10).
              query: `SELECT 'region ' || g AS region, 130 - g * 10 AS amount FROM generate_series(1, 12) g ORDER BY g`,
            },
            {
              id: 'many-lines',
              type: 'line',
              title: 'Many lines',
              position: { x: 6, y: 0, w: 6, h: 10 },
              dataSourceId: sourceId,
              query: `SELECT day::text AS day, ${SERIES.map((n, i) => `amount + ${i * 25} AS "${n}"`).join(', ')}
                FROM daily ORDER BY day`,
            },
            {
              id: 'many-bars',
              type: 'bar_stacked',
              title: 'Many bars',
              position: { x: 0, y: 10, w: 12, h: 10 },
              dataSourceId: sourceId,
              query: `SELECT region, ${SERIES.map((n, i) => `amount + ${i * 5} AS "${n}"`).join(', ')}
                FROM regions ORDER BY region`,
            },
          ],
        },
      },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    const page = await pages.open(viewer);
    await page.goto(`${s.url}/dashboards/${d.body.id}`);
    const drawn = () => chartsDrawn(page, 3);
    await drawn();
    const widget = (title: string) => widgetTitled(page, title);
    const pie = widget('Regions');
    const chart = pie.getByRole('img');
    const legend = pie.getByRole('list', { name: 'Legend' });
    const rgb = (hex: string) => `rgb(${[1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;
    const strokes = (w: Locator) =>
      w.locator('.chart-legend svg g').evaluateAll((gs: any[]) => gs.map((g) => getComputedStyle(g).stroke as string));
    // The canvas' pixels exactly in a colour (a slice's inside).
    const pixels = (hex: string) =>
      chart.evaluate(
        (el: any, rgb: number[]) => {
          const c = el.querySelector('canvas');
          const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 0; i < data.length; i += 4)
            if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) n++;
          return n;
        },
        [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)),
      );
    assert.equal(await chart.getAttribute('data-points'), '10', 'ten slices drawn');
    assert.match((await chart.getAttribute('aria-label'))!, /12 rows\. Other holds 3 of them, drawn as one slice\./);
    const slices = [...Array.from({ length: 9 }, (_, i) => `region ${i + 1}`), 'Other (3 slices)'];

    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.waitForFunction(
        (colour) => getComputedStyle(document.querySelector('.chart-legend svg g')).stroke === colour,
        rgb(PALETTE[theme][0]!),
      );
      await drawn();
      assert.deepEqual(await legend.getByRole('button').allInnerTexts(), slices, `${theme}: "Other" listed last`);
      const colours = await strokes(pie);
      assert.equal(new Set(colours).size, colours.length, `${theme}: every swatch its own colour: ${colours}`);
      assert.deepEqual(colours, PALETTE[theme].map(rgb), `${theme}: the palette in turn, "Other" in its last colour`);
      assert.ok((await pixels(PALETTE[theme].at(-1)!)) > 100, `${theme}: "Other" is drawn`);
      // Past the palette's ten, a line comes back dashed, with a triangle on its points, in the legend too.
      const lines = await widget('Many lines')
        .locator('.chart-legend svg')
        .evaluateAll((svgs: any[]) =>
          svgs.map((svg) => [
            svg.querySelector('line').getAttribute('stroke-dasharray'),
            svg.querySelector('polygon, circle').tagName,
          ]),
        );
      assert.deepEqual(lines[0], [null, 'circle']);
      assert.deepEqual(lines[10], ['3 3', 'polygon']);
      assert.equal(await widget('Many bars').locator('.chart-legend svg path').count(), 2, 'two striped swatches');
      await assertAccessible(page, `many slices (${theme})`);
      await screenshot(page, `charts-many-slices-${theme}`);
    }

    // "Other" hides and shows like any slice.
    const other = legend.getByRole('button', { name: 'Other (3 slices)' });
    await other.click();
    await chart.and(page.locator(`[data-drawn="true"][data-hidden='["Other"]']`)).waitFor();
    assert.equal(await other.getAttribute('aria-pressed'), 'false');
    assert.equal(await pixels(PALETTE.dark.at(-1)!), 0, '"Other" is no longer drawn');
    await other.click();
    await chart.and(page.locator(`[data-drawn="true"][data-hidden='[]']`)).waitFor();

    // Only the drawing groups: the data table has every row, the grouped ones too.
    await pie.getByRole('button', { name: 'Show data table' }).click();
    const table = page.getByRole('region', { name: 'Regions data' });
    assert.equal(await table.locator('tbody tr').count(), 10, 'the first page of its 12 rows');
    await page.getByRole('button', { name: 'Next page of Regions data' }).click();
    assert.deepEqual(await table.locator('tbody td').allInnerTexts(), ['region 11', '20', 'region 12', '10']);
    await page.getByRole('button', { name: 'Show chart' }).click();

    for (const theme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.setViewportSize({ width: 320, height: 800 });
      await drawn();
      assert.deepEqual(await legend.getByRole('button').allInnerTexts(), slices);
      const [canvas, key] = await Promise.all([pie.locator('canvas').boundingBox(), legend.boundingBox()]);
      assert.ok(canvas && key && key.y >= canvas.y + canvas.height, `${theme}, 320 px: the legend under the canvas`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320), 'no sideways scrolling');
      await assertAccessible(page, `many slices (${theme}, 320 px)`);
      await screenshot(page, `charts-many-slices-320-${theme}`);
    }
  });
});
