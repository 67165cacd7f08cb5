import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { freshMysql, mysqlConnection, type FreshMysqlDatabase } from '../support/mariadb.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, screenshot } from './web/browser.ts';
import { brokenWordsInTables, pagersBroken, scrollHintsMissing } from '../support/console-browser.ts';
import { assertFocusRing } from '../support/focus-ring.ts';

// Functions passed to page.evaluate run in the page; the test's TypeScript has no DOM types.
declare const document: any;

/**
 * Dashboards in Chromium against the real service, with a PostgreSQL and a MariaDB data source. People are signed
 * in through the CLI's token command (a real session); sign-in through the identity service is web-app.test.ts's.
 */
describe('the dashboard web app: dashboards', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let maria: FreshMysqlDatabase;
  let browser: Browser;
  let admin: SignedIn;
  let editor: SignedIn;
  let other: SignedIn;
  let viewer: SignedIn;
  let pgId: number;
  let myId: number;
  let savedId: number;
  let builtId: number;

  before(async () => {
    target = await freshPostgres('webdash');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount numeric(10,2), placed date NOT NULL);
      INSERT INTO orders SELECT g, (ARRAY['north','south','east','west'])[1 + g % 4], g * 10, current_date - (g % 20) FROM generate_series(1, 200) g;`);
    await c.end();
    maria = await freshMysql('webdash');
    const my = await mysqlConnection(maria);
    await my.query(`CREATE TABLE tickets (id INT PRIMARY KEY, state VARCHAR(20) NOT NULL);
      INSERT INTO tickets VALUES (1,'open'),(2,'open'),(3,'closed'),(4,'pending'),(5,'open'),(6,'closed')`);
    await my.end();
    s = await startDashboard('webdash');
    admin = await s.signIn({ tenant: 'acme', role: 'admin', name: 'Ada' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Eve' });
    other = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Otto' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Vic' });
    const a = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    pgId = a.body.id;
    const b = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Helpdesk', slug: 'helpdesk', type: 'mysql', connectionUrl: maria.url },
    });
    assert.equal(b.status, 201, JSON.stringify(b.body));
    myId = b.body.id;
    const q = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: {
        name: 'Tickets by state',
        dataSourceId: myId,
        query: 'SELECT state, COUNT(*) AS tickets FROM tickets GROUP BY state ORDER BY state',
      },
    });
    assert.equal(q.status, 201, JSON.stringify(q.body));
    savedId = q.body.id;
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await target?.drop();
    await maria?.drop();
  });

  let contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    contexts = [];
  });

  const pageAs = async (who: SignedIn, options: BrowserContextOptions = {}): Promise<Page> => {
    // Reduced motion: no chart animation, so a drawn chart is its final picture (and the setting is honoured).
    const context = await browser.newContext({
      reducedMotion: 'reduce',
      viewport: { width: 1280, height: 900 },
      ...options,
    });
    contexts.push(context);
    const pair = {
      accessToken: who.accessToken,
      refreshToken: who.refreshToken,
      expiresIn: who.expiresIn,
      tokenType: 'Bearer',
    };
    await context.addInitScript((p) => localStorage.setItem('dashboard.session', p), JSON.stringify(pair));
    return context.newPage();
  };

  /** Waits until `n` charts report drawn and answers each canvas's picture and how many of its pixels are painted. */
  const drawnCharts = async (page: Page, n: number) => {
    await page
      .waitForFunction((count) => document.querySelectorAll('.chart[data-drawn="true"] canvas').length >= count, n, {
        timeout: 20_000,
      })
      .catch(async (err) => {
        await screenshot(page, 'failed-charts');
        throw new Error(`${err}: ${await page.locator('.widget').allInnerTexts()}`);
      });
    return page.evaluate(() =>
      [...document.querySelectorAll('.chart canvas')].map((c: any) => {
        const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
        return { painted, picture: c.toDataURL() };
      }),
    );
  };

  const configure = async (
    page: Page,
    fields: {
      title: string;
      kind: string;
      sql?: string;
      source?: string;
      saved?: string;
      x?: string;
      y?: string;
      markdown?: string;
    },
  ) => {
    const panel = page.getByRole('region', { name: /^Configure widget/ });
    await panel.getByLabel('Title').fill(fields.title);
    await panel.getByLabel('Kind').selectOption({ label: fields.kind });
    if (fields.markdown !== undefined) await panel.getByLabel('Text (Markdown)').fill(fields.markdown);
    if (fields.saved) {
      await panel.getByLabel('Data from').selectOption({ label: 'A saved query' });
      await panel.getByLabel('Saved query').selectOption({ label: fields.saved });
    }
    if (fields.source) await panel.getByLabel('Data source').selectOption({ label: fields.source });
    // The SQL is CodeMirror's: cleared by its own command, then inserted (Chrome's native editing over a selection tries
    // a style attribute, which the CSP refuses; CodeMirror redraws from its state either way).
    if (fields.sql) {
      await panel.getByLabel('SQL', { exact: true }).click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.press('Backspace');
      await page.keyboard.insertText(fields.sql);
    }
    if (fields.x)
      await panel
        .getByLabel(/column$/)
        .first()
        .fill(fields.x);
    if (fields.y) await panel.getByLabel(/^Value column/).fill(fields.y);
    await panel.getByRole('button', { name: 'Done' }).click();
  };

  test('an editor builds a dashboard of a line, a bar and a pie chart and a text, saves, reloads and sees the same charts', async () => {
    const page = await pageAs(editor);
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${s.url}/`);
    await page.getByRole('link', { name: 'Dashboards' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'No dashboards yet.' }).waitFor();
    await page.getByRole('button', { name: 'New dashboard' }).click();
    await page.getByLabel('Title', { exact: true }).fill('Sales overview');
    assert.equal(await page.getByLabel('Short name').inputValue(), 'sales-overview');
    await assertAccessible(page, 'new dashboard form');
    await page.getByRole('button', { name: 'Create dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Editing: Sales overview' }).waitFor();
    builtId = Number(/\/dashboards\/(\d+)/.exec(page.url())![1]);

    // A time range parameter, passed to the line chart's query.
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByLabel('Name', { exact: true }).fill('range');
    await page.getByLabel('Kind', { exact: true }).selectOption({ label: 'Time range' });
    await page.getByLabel('Label', { exact: true }).fill('Period');
    await page.getByLabel('Default', { exact: true }).selectOption({ label: 'Last 7 days' });
    await page.getByRole('button', { name: 'Settings' }).click();

    await page.getByRole('button', { name: 'Add widget' }).click();
    await configure(page, {
      title: 'Orders per day',
      kind: 'Time series (line)',
      source: 'Shop',
      sql: 'SELECT placed::timestamptz AS day, count(*) AS orders FROM orders WHERE placed >= :range_from::timestamptz GROUP BY placed ORDER BY placed',
    });
    await page.getByRole('button', { name: 'Add widget' }).click();
    await configure(page, {
      title: 'Revenue by region',
      kind: 'Bar chart',
      source: 'Shop',
      sql: 'SELECT region, sum(amount) AS revenue FROM orders GROUP BY region ORDER BY region',
    });
    await page.getByRole('button', { name: 'Add widget' }).click();
    await configure(page, { title: 'Tickets', kind: 'Pie chart', saved: 'Tickets by state' });
    await page.getByRole('button', { name: 'Add widget' }).click();
    await configure(page, {
      title: 'Notes',
      kind: 'Text (Markdown)',
      markdown:
        '## Read me\n\nSee **orders**. <img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script> [bad](javascript:alert(1))',
    });
    await drawnCharts(page, 3);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 2.' }).waitFor();

    const saved = await s.request('GET', `/api/v1/dashboards/${builtId}`, { as: editor });
    assert.deepEqual(
      saved.body.definition.widgets.map((w: { type: string }) => w.type),
      ['line', 'bar', 'pie', 'text'],
    );
    assert.deepEqual(saved.body.definition.parameters, [
      { name: 'range', type: 'time_range', label: 'Period', default: '7d' },
    ]);
    assert.deepEqual(saved.body.definition.dataSources, [{ id: pgId }], 'only the sources the SQL widgets use');
    assert.equal(saved.body.definition.widgets[2].savedQueryId, savedId);

    const before = await drawnCharts(page, 3);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sales overview' }).waitFor();
    const afterReload = await drawnCharts(page, 3);
    assert.equal(afterReload.length, 3);
    for (const [i, c] of afterReload.entries()) {
      assert.ok(c.painted > 2000, `chart ${i} is drawn (${c.painted} painted pixels)`);
      assert.equal(c.picture, before[i]!.picture, `chart ${i} looks the same after the reload`);
    }
    // The Markdown is rendered, its script and handlers are not.
    await page.getByRole('heading', { level: 2, name: 'Read me' }).waitFor();
    assert.equal(await page.locator('.markdown strong').textContent(), 'orders');
    assert.equal(await page.locator('.markdown script, .markdown [onerror]').count(), 0);
    assert.equal(await page.locator('.markdown a[href^="javascript"]').count(), 0);
    assert.notEqual(await page.title(), 'pwned');

    // Each chart's text alternative: its data as a table.
    await page.getByRole('button', { name: 'Show data table of Revenue by region' }).click();
    const table = page.getByRole('region', { name: 'Revenue by region data' });
    assert.deepEqual(await table.locator('tbody tr').allInnerTexts(), [
      'east\t50000.00',
      'north\t51000.00',
      'south\t49500.00',
      'west\t50500.00',
    ]);
    assert.equal(
      await page.getByRole('button', { name: 'Show chart of Revenue by region' }).getAttribute('aria-expanded'),
      'true',
    );
    assert.equal(
      await page.getByRole('img', { name: /^Pie chart: Tickets\. tickets by state, 3 rows\./ }).count(),
      1,
      'the canvas is named by its summary',
    );
    // The parameter narrows the line chart's query.
    const rerun = page.waitForResponse((r) => r.url().endsWith('/widgets/w1/run'));
    await page.getByLabel('Period').selectOption({ label: 'Last 24 hours' });
    assert.ok(
      JSON.parse((await rerun).request().postData() ?? '{}').params.range_from >
        new Date(Date.now() - 25 * 3_600_000).toISOString(),
    );
    await page.getByRole('button', { name: 'Show data table of Orders per day' }).click();
    // Orders are dated whole days back from today: the last 24 hours hold one or two of those days (7 before).
    await page.waitForFunction(() => {
      const n = document.querySelectorAll('[aria-label="Orders per day data"] tbody tr').length;
      return n >= 1 && n <= 2;
    });
    await page.getByRole('button', { name: 'Show chart of Orders per day' }).click();
    await page.getByRole('button', { name: 'Show chart of Revenue by region' }).click();
    await drawnCharts(page, 3);
    await assertAccessible(page, 'dashboard view (light)');
    await screenshot(page, '20-dashboard-light');
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await drawnCharts(page, 3);
    await assertAccessible(page, 'dashboard view (dark)');
    await screenshot(page, '21-dashboard-dark');
    await page.getByRole('button', { name: 'Edit dashboard' }).click();
    await drawnCharts(page, 3);
    await assertAccessible(page, 'dashboard in edit mode (dark)');
    await screenshot(page, '22-dashboard-edit-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
    await page.getByRole('button', { name: 'Configure Revenue by region' }).click();
    await assertAccessible(page, 'widget editor (light)');
    await screenshot(page, '23-widget-editor');
    // Chromium reports the hostile <img onerror> as refused by the CSP when DOMPurify parses it in its inert document;
    // the handler never runs (the title above) and never reaches the page (no [onerror]). Anything else is a fault.
    assert.deepEqual(
      errors.filter((e) => !/Failed to load resource|Executing inline event handler/.test(e)),
      [],
      'no errors in the console (CSP refusals would show here)',
    );
  });

  test('the list searches, sorts and pages; light and dark pass axe', async () => {
    for (let i = 1; i <= 24; i++) {
      const r = await s.request('POST', '/api/v1/dashboards', {
        as: editor,
        body: {
          slug: `team-${i}`,
          title: `Team ${String(i).padStart(2, '0')}`,
          description: i % 2 ? 'odd team' : 'even team',
          definition: { layout: { type: 'grid', columns: 12, rowHeight: 40 }, dataSources: [], widgets: [] },
        },
      });
      assert.equal(r.status, 201);
    }
    const page = await pageAs(viewer);
    await page.goto(`${s.url}/dashboards`);
    await page.getByRole('status').filter({ hasText: '25 dashboards.' }).waitFor();
    assert.equal(await page.locator('table.list tbody tr').count(), 20);
    assert.equal(
      await page.locator('table.list tbody tr').first().locator('td').first().textContent(),
      'Team 24',
      'newest first',
    );
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    assert.equal(await page.locator('table.list tbody tr').count(), 5);
    // The pager is one line on a phone too ("Next page" wrapped alone under the page's number).
    await page.setViewportSize({ width: 320, height: 800 });
    assert.deepEqual(await pagersBroken(page), []);
    await screenshot(page, '24b-dashboards-pager-320');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByLabel('Sort').selectOption({ label: 'Title A to Z' });
    await page.getByText('Page 1 of 2').waitFor();
    assert.equal(
      await page.locator('table.list tbody tr').first().locator('td').first().textContent(),
      'Sales overview',
    );
    await page.getByLabel('Search titles and descriptions').fill('odd');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: '12 dashboards matching "odd".' }).waitFor();
    assert.equal(await page.locator('table.list tbody tr').first().locator('td').first().textContent(), 'Team 01');
    await assertAccessible(page, 'dashboards list (light)');
    await screenshot(page, '24-dashboards-list');
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'dashboards list (dark)');
    await screenshot(page, '25-dashboards-list-dark');
    await page.getByLabel('Search titles and descriptions').fill('nothing like this');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: 'No dashboard matches "nothing like this".' }).waitFor();
  });

  test('a viewer sees the charts but no edit controls', async () => {
    const page = await pageAs(viewer);
    await page.goto(`${s.url}/dashboards`);
    assert.equal(await page.getByRole('button', { name: 'New dashboard' }).count(), 0);
    await page.goto(`${s.url}/dashboards/${builtId}?edit=1`);
    await page.getByRole('heading', { level: 1, name: 'Sales overview' }).waitFor();
    const charts = await drawnCharts(page, 3);
    assert.ok(
      charts.every((c) => c.painted > 2000),
      "a viewer's charts are drawn through the widget route",
    );
    for (const name of [
      'Edit dashboard',
      'Delete dashboard',
      'Add widget',
      // The draft's Save, not "Save as PNG or PDF", which a viewer has.
      /^Save$/,
      'Settings',
      /^Configure/,
      /^Remove/,
      /^Move/,
    ]) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, String(name));
    }
    await page.getByRole('button', { name: 'Version history' }).click();
    await page.getByRole('cell', { name: 'current' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Restore version/ }).count(), 0);
    await assertAccessible(page, 'dashboard as a viewer');
    // On a 320 px screen (WCAG 1.4.10) the widgets stack at full width in reading order (row, then column), each keeping
    // its height, and the page does not scroll sideways.
    await page.setViewportSize({ width: 320, height: 800 });
    await page.waitForFunction(
      () => {
        const [a, b] = [...document.querySelectorAll('.widget')].map((e) => e.getBoundingClientRect());
        return a && b && a.x === b.x;
      },
      undefined,
      { timeout: 5_000 },
    );
    const boxes = await page.locator('.widget').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { title: e.querySelector('h2')?.textContent, x: r.x, y: r.y, width: r.width, height: r.height };
      }),
    );
    assert.deepEqual(
      boxes.map((b) => b.title),
      ['Orders per day', 'Revenue by region', 'Tickets', 'Notes'],
    );
    assert.ok(
      boxes.every((b) => b.x === boxes[0]!.x && b.width === boxes[0]!.width && b.height > 100),
      JSON.stringify(boxes),
    );
    assert.ok(
      boxes.every((b, i) => i === 0 || b.y >= boxes[i - 1]!.y + boxes[i - 1]!.height),
      'one below the other',
    );
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 320, 'no sideways scrolling');
    await screenshot(page, '14-dashboard-narrow');
    // And the API refuses anyway.
    const put = await s.request('PUT', `/api/v1/dashboards/${builtId}`, { as: viewer, body: { title: 'Mine' } });
    assert.equal(put.status, 403);
  });

  test("at 320 px the dashboard's toolbar is two rows: the primary actions, the rest behind More, by keyboard", async () => {
    /** The toolbar's controls shown (a field by its select), as rows: those sharing a bottom edge are one row. */
    const toolbar = (page: Page) =>
      page.evaluate(() =>
        [...document.querySelectorAll('div.toolbar :is(button, a, select)')]
          .map((e: any) => ({ e, r: e.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0)
          .map(({ e, r }) => ({
            name: e.getAttribute('aria-label') ?? (e.tagName === 'SELECT' ? e.id : e.textContent),
            bottom: Math.round(r.bottom),
            width: r.width,
            height: r.height,
          })),
      );
    const rows = (controls: { bottom: number }[]) => new Set(controls.map((c) => c.bottom)).size;
    const page = await pageAs(editor);
    await page.goto(`${s.url}/dashboards/${builtId}`);
    await page.getByRole('heading', { level: 1, name: 'Sales overview' }).waitFor();
    await drawnCharts(page, 3);
    // Wide, every control is in the one row and there is no More.
    const wide = await toolbar(page);
    assert.deepEqual(
      wide.map((c) => c.name),
      [
        'refresh',
        'Refresh now',
        'Edit dashboard',
        'Version history',
        'Share',
        'Subscriptions',
        'Export',
        'Save as PNG or PDF',
        'Delete dashboard',
      ],
    );
    assert.equal(rows(wide), 1, JSON.stringify(wide));
    await screenshot(page, '15-dashboard-toolbar-1280-light', { fullPage: false });
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await screenshot(page, '15-dashboard-toolbar-1280-dark', { fullPage: false });

    await page.setViewportSize({ width: 320, height: 800 });
    const more = page.getByRole('button', { name: 'More', exact: true });
    await more.waitFor();
    const narrow = await toolbar(page);
    assert.deepEqual(
      narrow.map((c) => c.name),
      ['refresh', 'Refresh now', 'Edit dashboard', 'More'],
      'the primary actions stay in view',
    );
    assert.ok(rows(narrow) <= 2, `at most two rows: ${JSON.stringify(narrow)}`);
    assert.ok(
      narrow.every((c) => c.width >= 24 && c.height >= 24),
      `targets of 24 px at least: ${JSON.stringify(narrow)}`,
    );
    assert.equal(await more.getAttribute('aria-expanded'), 'false');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      await assertFocusRing(page, more, { className: 'error' }, `dashboard-more-${colorScheme}`);
      await assertAccessible(page, `dashboard toolbar at 320 px, ${colorScheme}`);
      await screenshot(page, `15-dashboard-toolbar-320-${colorScheme}`, { fullPage: false });
    }

    // By keyboard: Enter opens More, Tab walks into what it holds, Escape closes it and gives the focus back.
    await more.focus();
    await page.keyboard.press('Enter');
    assert.equal(await more.getAttribute('aria-expanded'), 'true');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Version history');
    const opened = await toolbar(page);
    assert.deepEqual(
      opened.slice(4).map((c) => c.name),
      ['Version history', 'Share', 'Subscriptions', 'Export', 'Save as PNG or PDF', 'Delete dashboard'],
    );
    assert.ok(opened.every((c) => c.width >= 24 && c.height >= 24 && c.width <= 288));
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      await assertAccessible(page, `dashboard toolbar's More open at 320 px, ${colorScheme}`);
      await screenshot(page, `15-dashboard-more-320-${colorScheme}`, { fullPage: false });
    }
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 320, 'no sideways scrolling');
    // Delete in the menu asks first, and Cancel comes back to it, the menu still open.
    await page.getByRole('button', { name: 'Delete dashboard' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Delete the dashboard “Sales overview”?' }).waitFor();
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.activeElement?.textContent === 'Delete dashboard');
    await page.keyboard.press('Escape');
    assert.equal(await more.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'More');
    assert.equal(await page.getByRole('button', { name: 'Delete dashboard' }).isVisible(), false);
    assert.equal((await s.request('GET', `/api/v1/dashboards/${builtId}`, { as: editor })).status, 200);

    // Editing: Add widget, Save and Cancel in view; the interval joins Settings and the history behind More.
    await page.getByRole('button', { name: 'Edit dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Editing: Sales overview' }).waitFor();
    const editing = await toolbar(page);
    assert.deepEqual(
      editing.map((c) => c.name),
      ['Add widget', 'Save', 'Cancel', 'More'],
    );
    assert.ok(rows(editing) <= 2, `at most two rows while editing: ${JSON.stringify(editing)}`);
    await more.click();
    assert.deepEqual(
      (await toolbar(page)).slice(4).map((c) => c.name),
      ['refresh', 'Settings', 'Version history'],
    );
    // The toolbar only: the editing grid keeps its twelve columns on a phone, where a text widget's body scrolls
    // without taking the focus (axe's scrollable-region-focusable), as it did before More.
    await assertAccessible(page, "dashboard toolbar's More open while editing at 320 px", 'div.toolbar');
    await screenshot(page, '15-dashboard-edit-more-320', { fullPage: false });
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sales overview' }).waitFor();
  });

  test("at 320 px a table widget's columns scroll sideways in it, and it says so", async () => {
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'latest',
        title: 'Latest orders',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 40 },
          dataSources: [{ id: pgId }],
          widgets: [
            {
              id: 'latest',
              type: 'table',
              title: 'Latest orders',
              position: { x: 0, y: 0, w: 12, h: 8 },
              dataSourceId: pgId,
              query: 'SELECT id, region, amount, placed::text AS placed FROM orders ORDER BY id DESC LIMIT 5',
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const page = await pageAs(viewer, { viewport: { width: 320, height: 800 } });
    await page.goto(`${s.url}/dashboards/${created.body.id}`);
    const region = page.getByRole('region', { name: 'Latest orders data' });
    await region.getByRole('cell').first().waitFor();
    // Its last column was cut at the widget's edge, its dates broken in two, with nothing to say there was more: it has
    // the shadow and the description of every wide table, and takes the focus to be scrolled by the keyboard.
    await page.waitForFunction(() => document.querySelector('.widget .table-frame[data-more-right]') !== null);
    assert.match(
      (await region.evaluate((e) => document.getElementById(e.getAttribute('aria-describedby') ?? '')?.textContent)) ??
        '',
      /Scrolls sideways/,
    );
    assert.deepEqual(await scrollHintsMissing(page), []);
    assert.deepEqual(await brokenWordsInTables(page), [], 'no date broken across lines');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await assertAccessible(page, `table widget at 320 px, ${colorScheme}`);
    }
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 320, 'no sideways scrolling');
    await screenshot(page, '14b-table-widget-narrow');
  });

  test('a viewer sets a choice and a text parameter: the single number and the table follow; auto-refresh runs them again', async () => {
    const filter = 'WHERE region = :region AND amount >= :min::numeric';
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'regions',
        title: 'Regions',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 40 },
          dataSources: [{ id: pgId }],
          refreshSeconds: 5,
          parameters: [
            { name: 'region', type: 'choice', label: 'Region', choices: ['north', 'south', 'east', 'west'] },
            { name: 'min', type: 'text', label: 'Minimum amount', default: '0' },
          ],
          widgets: [
            {
              id: 'count',
              type: 'stat',
              title: 'Orders',
              position: { x: 0, y: 0, w: 3, h: 3 },
              dataSourceId: pgId,
              query: `SELECT count(*) AS orders FROM orders ${filter}`,
              options: { unit: 'orders' },
            },
            {
              id: 'first',
              type: 'table',
              title: 'First orders',
              position: { x: 3, y: 0, w: 9, h: 6 },
              dataSourceId: pgId,
              query: `SELECT id, amount FROM orders ${filter} ORDER BY id LIMIT 3`,
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const page = await pageAs(viewer);
    await page.goto(`${s.url}/dashboards/${created.body.id}`);
    const stat = page.locator('[data-widget="count"] .stat-value');
    await stat.filter({ hasText: /^50 orders$/ }).waitFor();
    // The unit names the column (`AS orders`): said once, not again under the number.
    assert.equal(await page.locator('[data-widget="count"] .stat').textContent(), '50 orders');
    assert.equal(await page.getByLabel('Auto-refresh').inputValue(), '5', 'the saved interval');
    await page.getByLabel('Minimum amount').fill('1000');
    await page.keyboard.press('Enter');
    await stat.filter({ hasText: /^26 orders$/ }).waitFor();
    const table = page.getByRole('region', { name: 'First orders data' });
    await table.locator('tbody tr:first-child td:first-child').filter({ hasText: /^100$/ }).waitFor();
    assert.deepEqual(await table.locator('tbody tr:first-child td').allTextContents(), ['100', '1000.00']);
    await page.getByLabel('Region').selectOption('south');
    await stat.filter({ hasText: /^25 orders$/ }).waitFor();
    await table.locator('tbody tr:first-child td:first-child').filter({ hasText: /^101$/ }).waitFor();
    assert.deepEqual(await table.locator('tbody tr:first-child td').allTextContents(), ['101', '1010.00']);
    await assertAccessible(page, 'parameters, a single number and a table');
    await screenshot(page, '29-parameters-stat-table');
    // Auto-refresh: without touching anything, the widgets run again (5 s, the saved interval).
    const again = await page.waitForRequest((r) => r.url().endsWith('/widgets/count/run'), { timeout: 15_000 });
    assert.deepEqual(JSON.parse(again.postData() ?? '{}').params, { region: 'south', min: '1000' });
    await page.getByLabel('Auto-refresh').selectOption({ label: 'Off' });
  });

  test('cross-filtering: an editor sets a bar chart to filter by its region; a click on a bar, then the keyboard, filters the other widgets', async () => {
    const filter = "WHERE (:region = '' OR region = :region)";
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'cross-filter',
        title: 'Cross-filter',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 40 },
          dataSources: [{ id: pgId }],
          parameters: [{ name: 'region', type: 'text', label: 'Region' }],
          widgets: [
            {
              id: 'by-region',
              type: 'bar',
              title: 'Revenue by region',
              position: { x: 0, y: 0, w: 6, h: 7 },
              dataSourceId: pgId,
              query: 'SELECT region, sum(amount) AS revenue FROM orders GROUP BY region ORDER BY region',
            },
            {
              id: 'count',
              type: 'stat',
              title: 'Orders',
              position: { x: 6, y: 0, w: 6, h: 3 },
              dataSourceId: pgId,
              query: `SELECT count(*) AS orders FROM orders ${filter}`,
              options: { unit: 'orders' },
            },
            {
              id: 'first',
              type: 'table',
              title: 'First orders',
              position: { x: 6, y: 3, w: 6, h: 7 },
              dataSourceId: pgId,
              query: `SELECT id, region FROM orders ${filter} ORDER BY id LIMIT 3`,
              click: { setParameter: 'region', column: 'region' },
            },
            {
              id: 'crm',
              type: 'pie',
              title: 'Regions in the CRM',
              position: { x: 0, y: 10, w: 12, h: 7 },
              dataSourceId: pgId,
              query: 'SELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY region',
              click: { link: 'https://crm.example.com/regions/{value}?from=dashboard' },
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;

    // The editor configures the bar chart: a click on a value sets Region.
    const page = await pageAs(editor);
    await page.goto(`${s.url}/dashboards/${id}`);
    await page.getByRole('button', { name: 'Edit dashboard' }).click();
    await page.getByRole('button', { name: 'Configure Revenue by region' }).click();
    const panel = page.getByRole('region', { name: /^Configure widget/ });
    const when = panel.getByRole('group', { name: 'When a value is clicked' });
    await when.getByLabel('Action').selectOption({ label: 'Open a link' });
    await when.getByLabel('Link').fill('javascript:alert({value})');
    await when.getByText('Only an http(s) address or a path of this console').waitFor();
    await when.getByLabel('Action').selectOption({ label: 'Filter the dashboard' });
    assert.equal(await when.getByLabel('Parameter to set').inputValue(), 'region');
    await assertAccessible(page, 'click behaviour settings');
    await screenshot(page, '30-click-settings');
    await panel.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 2.' }).waitFor();
    const saved = (await s.request('GET', `/api/v1/dashboards/${id}`, { as: editor })).body;
    assert.deepEqual(saved.definition.widgets[0].click, { setParameter: 'region' });

    // A viewer clicks the "north" bar (the second of east, north, south, west), found by its colour on the canvas.
    const view = await pageAs(viewer);
    await view.goto(`${s.url}/dashboards/${id}`);
    const stat = view.locator('[data-widget="count"] .stat-value');
    const firstId = view.locator('[data-widget="first"] tbody tr:first-child td:first-child');
    await stat.filter({ hasText: /^200 orders$/ }).waitFor();
    await firstId.filter({ hasText: /^1$/ }).waitFor();
    await drawnCharts(view, 2);
    const chart = view.locator('[data-widget="by-region"] .chart');
    assert.equal(await chart.getAttribute('data-clickable'), 'true');
    assert.match((await chart.getAttribute('aria-label')) ?? '', /Click a bar to filter the dashboard by Region/);
    const bars = await chart.locator('canvas').evaluate((c: any) => {
      // Columns of the bars' colour (the light palette's first, #0b57d0), grouped into runs: one run a bar.
      const { width, height } = c;
      const data = c.getContext('2d').getImageData(0, 0, width, height).data;
      const runs: { from: number; to: number; top: number; bottom: number }[] = [];
      for (let x = 0; x < width; x++) {
        let top = -1;
        let bottom = -1;
        for (let y = 0; y < height; y++) {
          const i = (y * width + x) * 4;
          if (Math.abs(data[i] - 11) < 8 && Math.abs(data[i + 1] - 87) < 8 && Math.abs(data[i + 2] - 208) < 8) {
            if (top < 0) top = y;
            bottom = y;
          }
        }
        const last = runs.at(-1);
        if (top < 0) continue;
        if (last && last.to === x - 1)
          Object.assign(last, { to: x, top: Math.min(top, last.top), bottom: Math.max(bottom, last.bottom) });
        else runs.push({ from: x, to: x, top, bottom });
      }
      const box = c.getBoundingClientRect();
      const scale = box.width / width;
      return runs
        .filter((r) => r.to - r.from >= 4)
        .map((r) => ({ x: box.left + ((r.from + r.to) / 2) * scale, y: box.top + ((r.top + r.bottom) / 2) * scale }));
    });
    assert.equal(bars.length, 4, `four bars: ${JSON.stringify(bars)}`);
    await view.mouse.click(bars[1]!.x, bars[1]!.y);
    await view.waitForURL(/[?&]var-region=north(&|$)/);
    await stat.filter({ hasText: /^50 orders$/ }).waitFor();
    await firstId.filter({ hasText: /^4$/ }).waitFor();
    await view.getByRole('status').filter({ hasText: 'Filtered by Region: north.' }).waitFor();
    const chips = view.getByRole('region', { name: 'Active filters' });
    await chips.getByText('Region: north').waitFor();
    assert.equal(
      await view.getByLabel('Region', { exact: true }).inputValue(),
      'north',
      'the parameters bar says it too',
    );
    await assertAccessible(view, 'a filter set by a click');
    await screenshot(view, '31-cross-filter');
    // A reload keeps it (the address holds it); the chip's button clears it, and the focus goes to the field.
    await view.reload();
    await stat.filter({ hasText: /^50 orders$/ }).waitFor();
    await chips.getByRole('button', { name: 'Clear filter Region: north' }).click();
    await stat.filter({ hasText: /^200 orders$/ }).waitFor();
    assert.doesNotMatch(view.url(), /var-region=north/);
    assert.equal(await view.evaluate(() => document.activeElement?.id), 'param-region');
    assert.equal(await chips.count(), 0);

    // A table's cells in the configured column act as a click on a bar does: "west" in First orders.
    await view.locator('[data-widget="first"]').getByRole('button', { name: 'Filter by Region: west' }).click();
    await view.waitForURL(/[?&]var-region=west(&|$)/);
    await firstId.filter({ hasText: /^3$/ }).waitFor();

    // The keyboard alone: the chip clears the filter, and the chart's data table lists each region as a button that
    // does what a click on its bar does.
    const tabTo = async (name: string) => {
      for (let i = 0; i < 60; i++) {
        await view.keyboard.press('Tab');
        const focused = await view.evaluate(() => {
          const e = document.activeElement;
          return (e?.getAttribute('aria-label') ?? e?.textContent ?? '').trim();
        });
        if (focused === name) return;
      }
      throw new Error(`Tab never reached ${name}`);
    };
    await view.locator('h1').click();
    await tabTo('Clear filter Region: west');
    await view.keyboard.press('Enter');
    await firstId.filter({ hasText: /^1$/ }).waitFor();
    assert.equal(await view.evaluate(() => document.activeElement?.id), 'param-region');
    await tabTo('Show data table of Revenue by region');
    await view.keyboard.press('Enter');
    await tabTo('Filter by Region: east');
    await view.keyboard.press('Enter');
    await view.waitForURL(/[?&]var-region=east(&|$)/);
    await firstId.filter({ hasText: /^2$/ }).waitFor();
    await stat.filter({ hasText: /^50 orders$/ }).waitFor();
    await chips.getByText('Region: east').waitFor();

    // Drill-through: the pie's data table links each region to the CRM, the value encoded, in a new tab.
    await view.getByRole('button', { name: 'Show data table of Regions in the CRM' }).click();
    const link = view.locator('[data-widget="crm"]').getByRole('link', { name: 'north (opens in a new tab)' });
    assert.equal(await link.getAttribute('href'), 'https://crm.example.com/regions/north?from=dashboard');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');

    await view.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await assertAccessible(view, 'cross-filter, dark');
    await screenshot(view, '32-cross-filter-dark');
    await view.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
    await view.setViewportSize({ width: 320, height: 800 });
    await chips.getByText('Region: east').waitFor();
    assert.equal(await view.evaluate(() => document.documentElement.scrollWidth), 320, 'no sideways scrolling');
    await assertAccessible(view, 'cross-filter, 320 px');
    await screenshot(view, '33-cross-filter-narrow');
  });

  test('when the dashboards chunk cannot be loaded, the screen says so instead of going blank', async () => {
    const page = await pageAs(viewer);
    await page.route(/\/assets\/DashboardsScreen-[^/]+\.js$/, (route) => route.abort());
    await page.goto(`${s.url}/dashboards`);
    await page.getByRole('alert').filter({ hasText: 'This screen could not be shown' }).waitFor();
    await page.getByRole('link', { name: 'Data sources' }).waitFor();
    await assertAccessible(page, 'chunk load failure');
  });

  test('a stale save: another session saved first, the editor is told and reloads; an old version is restored', async () => {
    const mine = await pageAs(editor);
    await mine.goto(`${s.url}/dashboards/${builtId}`);
    await mine.getByRole('button', { name: 'Edit dashboard' }).click();
    await mine.getByRole('button', { name: 'Settings' }).click();
    await mine.getByLabel('Title', { exact: true }).fill('Sales (mine)');

    const theirs = await pageAs(other);
    await theirs.goto(`${s.url}/dashboards/${builtId}`);
    await theirs.getByRole('button', { name: 'Edit dashboard' }).click();
    await theirs.getByRole('button', { name: 'Settings' }).click();
    await theirs.getByLabel('Title', { exact: true }).fill('Sales (theirs)');
    await theirs.getByRole('button', { name: 'Save' }).click();
    await theirs.getByRole('status').filter({ hasText: 'Saved as version 3.' }).waitFor();

    await mine.getByRole('button', { name: 'Save' }).click();
    const alert = mine
      .getByRole('alert')
      .filter({ hasText: 'Someone else changed this dashboard since you opened it.' });
    await alert.waitFor();
    await assertAccessible(mine, 'stale save notice');
    await screenshot(mine, '26-stale-save');
    assert.equal(
      (await s.request('GET', `/api/v1/dashboards/${builtId}`, { as: editor })).body.title,
      'Sales (theirs)',
      'their save stands',
    );
    await alert.getByRole('button', { name: 'Reload the dashboard' }).click();
    await mine.getByRole('heading', { level: 1, name: 'Sales (theirs)' }).waitFor();
    await mine.getByRole('status').filter({ hasText: 'Reloaded the latest version.' }).waitFor();

    await mine.getByRole('button', { name: 'Version history' }).click();
    await mine.getByRole('button', { name: 'Restore version 2' }).click();
    await mine.getByRole('dialog', { name: 'Restore version 2?' }).getByRole('button', { name: 'Restore' }).click();
    await mine.getByRole('status').filter({ hasText: 'Restored version 2 as version 4.' }).waitFor();
    await mine.getByRole('heading', { level: 1, name: 'Sales overview' }).waitFor();
    await mine.getByRole('cell', { name: 'restored from version 2' }).waitFor();
    await assertAccessible(mine, 'version history');
    await screenshot(mine, '27-version-history');
  });

  test('widgets move and resize by dragging in edit mode', async () => {
    const page = await pageAs(editor);
    await page.goto(`${s.url}/dashboards/${builtId}`);
    await page.getByRole('button', { name: 'Edit dashboard' }).click();
    const head = page.locator('[data-widget="w2"] .widget-head');
    const box = (await head.boundingBox())!;
    const grid = (await page.locator('.grid').boundingBox())!;
    const column = (grid.width + 8) / 12;
    await page.mouse.move(box.x + 20, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 20 - 2 * column, box.y + box.height / 2 + 96, { steps: 5 });
    await page.mouse.up();
    await page.locator('[data-widget="w2"] .resize-handle').scrollIntoViewIfNeeded();
    const corner = (await page.locator('[data-widget="w2"] .resize-handle').boundingBox())!;
    await page.mouse.move(corner.x + 12, corner.y + 12);
    await page.mouse.down();
    await page.mouse.move(corner.x + 12 + column, corner.y + 12 + 48, { steps: 5 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved as version \d+\.$/ })
      .waitFor();
    const d = (await s.request('GET', `/api/v1/dashboards/${builtId}`, { as: editor })).body;
    const w2 = d.definition.widgets.find((w: { id: string }) => w.id === 'w2');
    assert.deepEqual(
      w2.position,
      { x: 4, y: 0, w: 7, h: 7 },
      // Since compaction (issue 28): dropped over the widget on its left, it takes that one's rows, pushes it below and floats up.
      'from {x: 6, y: 0, w: 6, h: 6}: two columns left, floated back to the top, one wider and taller',
    );
  });

  test('keyboard only: create a dashboard, add and configure a widget, move and resize it, save', async () => {
    const page = await pageAs(editor);
    await page.goto(`${s.url}/dashboards`);
    await page.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
    /** Presses Tab until the focused element has this accessible name (what a keyboard user does). */
    const tabTo = async (name: string | RegExp) => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          // The SQL editor (CodeMirror) lives in a shadow root: the focus is on its content, inside.
          let e = document.activeElement;
          while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
          if (!e) return '';
          const labelled =
            e.getAttribute('aria-label') ?? (e.id ? document.querySelector(`label[for="${e.id}"]`)?.textContent : null);
          return (labelled ?? e.textContent ?? '').trim();
        });
        if (typeof name === 'string' ? focused === name : name.test(focused)) return;
      }
      throw new Error(`Tab never reached ${name}`);
    };
    await tabTo('New dashboard');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Keyboard walk');
    await tabTo('Create dashboard');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Editing: Keyboard walk' }).waitFor();
    const id = Number(/\/dashboards\/(\d+)/.exec(page.url())![1]);
    await tabTo('Add widget');
    await page.keyboard.press('Enter');
    // The new widget's settings open with the focus on their heading, so the next Tab reaches them.
    await page.waitForFunction(() => /^Configure widget/.test(document.activeElement?.textContent ?? ''));
    await tabTo('Title');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Regions');
    await tabTo('Kind');
    await page.keyboard.type('Pie'); // the select's type-ahead: "Pie chart"
    await tabTo('Data source');
    await page.keyboard.type('Shop');
    await tabTo('SQL');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('SELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY region');
    // In the SQL editor Escape closes the completion and frees Tab (CodeMirror's); Tab then leaves the editor.
    await page.keyboard.press('Escape');
    assert.equal(await page.getByRole('region', { name: /^Configure widget/ }).count(), 1, 'the panel stays open');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Escape');
    // Escape (like Done) closes the panel and returns focus to the widget: arrows move it, Shift+arrows resize it, each announced.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-widget')), 'w1');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page
      .locator('[aria-live="polite"]')
      // Alone on the grid, a step down would leave an empty row above it: with compaction it stays on row 1.
      .filter({ hasText: 'Regions: column 3, row 1, 6 wide, 6 high.' })
      .waitFor();
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Shift+ArrowDown');
    await page
      .locator('[aria-live="polite"]')
      .filter({ hasText: 'Regions: column 3, row 1, 5 wide, 7 high.' })
      .waitFor();
    await tabTo('Move left: Regions');
    await page.keyboard.press('Enter');
    await page
      .locator('[aria-live="polite"]')
      .filter({ hasText: 'Regions: column 2, row 1, 5 wide, 7 high.' })
      .waitFor();
    await drawnCharts(page, 1);
    await assertAccessible(page, 'keyboard walk, edit mode');
    await screenshot(page, '28-keyboard-walk');
    await page.keyboard.press('Shift+Tab');
    for (let i = 0; i < 80 && (await page.evaluate(() => document.activeElement?.textContent)) !== 'Save'; i++)
      await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Saved as version 2.' }).waitFor();
    const d = (await s.request('GET', `/api/v1/dashboards/${id}`, { as: editor })).body;
    assert.equal(d.definition.widgets.length, 1);
    assert.deepEqual(
      {
        type: d.definition.widgets[0].type,
        title: d.definition.widgets[0].title,
        position: d.definition.widgets[0].position,
      },
      { type: 'pie', title: 'Regions', position: { x: 1, y: 0, w: 5, h: 7 } },
    );
  });
});
