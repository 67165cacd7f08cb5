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

/**
 * The query workflow in Chromium on a real PostgreSQL source: the saved queries' screen (search, open in the editor,
 * edit, run, rename, delete, who changed it), the person's history, a chart made from a result and put on a new and an
 * existing dashboard, and a widget's SQL in the same editor with completion.
 */
describe('the dashboard web app: the query workflow', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let browser: Browser;
  let admin: SignedIn;
  let editor: SignedIn;
  let sourceId: number;
  const pages = pageOpener(() => browser);

  before(async () => {
    target = await freshPostgres('webqueries');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE sales (country text NOT NULL, amount int NOT NULL);
      INSERT INTO sales VALUES ('France', 10), ('Spain', 20), ('Japan', 30), ('France', 5);`);
    await c.end();
    s = await startDashboard('dashwebqueries');
    admin = await s.signIn({ tenant: 'acme', role: 'admin', name: 'Ada Admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Eve Editor' });
    const r = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    assert.equal(r.status, 201);
    sourceId = r.body.id;
    for (const [name, query] of [
      ['Sales by country', 'SELECT country, sum(amount) AS total FROM sales GROUP BY country ORDER BY country'],
      ['Biggest sale', 'SELECT max(amount) AS biggest FROM sales'],
      ['Old report', 'SELECT 1 AS one'],
    ]) {
      const q = await s.request('POST', '/api/v1/queries', {
        as: admin,
        body: { name, dataSourceId: sourceId, query },
      });
      assert.equal(q.status, 201);
    }
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  afterEach(() => pages.closeAll());
  after(async () => {
    await browser?.close();
    await s?.close();
    await target?.drop();
  });

  const editorText = (page: Page) => page.locator('.cm-content').first().textContent();
  /**
   * Replaces the editor's text: select all, delete (CodeMirror's own command), then insert. Inserting over a selection
   * lets Chrome's native editing try a style attribute, which the CSP refuses (harmless: CodeMirror redraws from its
   * state), and the console check would report it.
   */
  const typeSql = async (page: Page, sql: string) => {
    await page.locator('.cm-content').first().click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(sql);
    await page.keyboard.press('Escape');
  };
  const drawn = async (page: Page, n: number) => {
    await page.waitForFunction(
      (count) => document.querySelectorAll('.chart[data-drawn="true"] canvas').length >= count,
      n,
      { timeout: 20_000 },
    );
    return page.evaluate(() =>
      [...document.querySelectorAll('.chart[data-drawn="true"]')].map((el: any) => {
        const c = el.querySelector('canvas')!;
        const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
        return { points: Number(el.dataset.points), painted };
      }),
    );
  };
  /**
   * Holds back the page's reads of the saved queries' list until `release`: what the list shows before its refetch
   * answers, which is otherwise over too soon to look at. `asked` resolves once a read is held.
   */
  const holdListReads = async (page: Page) => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let seen!: () => void;
    const asked = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const list = (url: URL) => url.pathname === '/api/v1/queries';
    const passed: Promise<void>[] = [];
    await page.route(list, (route) => {
      seen();
      const pass = gate.then(() => route.continue());
      passed.push(pass);
      return pass;
    });
    return {
      asked,
      release: async () => {
        open();
        await Promise.all(passed);
        await page.unroute(list);
      },
    };
  };
  const checkLooks = async (page: Page, name: string) => {
    await assertAccessible(page, name);
    await screenshot(page, `queries-${name}`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, `${name} (dark)`);
    await screenshot(page, `queries-${name}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 320, height: 800 });
    await assertAccessible(page, `${name} (320 px)`);
    // What sticks out, to name in the failure. Inside a table's region too: a hidden name of a row's button, placed
    // by the region's frame rather than the region, widened the page though the table itself scrolled.
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('main *')]
        .filter((e: any) => e.getBoundingClientRect().right > 321 && !e.closest('.cm-scroller'))
        .filter(
          (e: any) => !e.closest('.table-wide') || (globalThis as any).getComputedStyle(e).position === 'absolute',
        )
        .map((e: any) => `${e.tagName}.${e.className}: ${(e.textContent ?? '').slice(0, 30)}`),
    );
    await screenshot(page, `queries-${name}-320`);
    assert.equal(
      await page.evaluate('document.documentElement.scrollWidth'),
      320,
      `${name}: nothing scrolls sideways at 320 px (${wide.join(' | ')})`,
    );
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  test('saved queries: search, open in the editor, change and save, rename and delete, with who changed it', async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Saved queries' }).click();
    await page.getByRole('heading', { level: 1, name: 'Saved queries' }).waitFor();
    await page.getByRole('row', { name: /Sales by country/ }).waitFor();
    assert.match(await page.getByRole('row', { name: /Sales by country/ }).innerText(), /by Ada Admin/);
    await checkLooks(page, 'list');

    // Search by a word of the SQL, with the keyboard.
    await page.getByLabel('Search names, descriptions and SQL').fill('max(');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Page 1 of the queries matching "max("' }).waitFor();
    assert.deepEqual(await page.locator('tbody tr td:first-child a').allTextContents(), ['Biggest sale']);
    await page.getByLabel('Search names, descriptions and SQL').fill('');
    await page.keyboard.press('Enter');
    await page.getByRole('row', { name: /Old report/ }).waitFor();

    // Open one in the SQL editor, change it, run it and save the changes.
    await page.getByRole('link', { name: 'Sales by country' }).click();
    await page.getByRole('heading', { level: 1, name: 'SQL editor' }).waitFor();
    await page.getByText('Editing the saved query').waitFor();
    assert.match((await editorText(page)) ?? '', /sum\(amount\) AS total/);
    await typeSql(
      page,
      'SELECT country, sum(amount) AS total FROM sales WHERE amount > :least GROUP BY country ORDER BY country',
    );
    await page.getByLabel('least', { exact: true }).fill('6');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^3 rows in \d+ ms\.$/ })
      .waitFor();
    await page.getByText('(changed, not saved)').waitFor();
    await page.getByRole('button', { name: 'Save changes to Sales by country' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Saved the changes to "Sales by country".' })
      .waitFor({ timeout: 10_000 })
      .catch(async (err) => {
        throw new Error(`${err}: ${await page.locator('main').innerText()}`);
      });
    const stored = await s.request('GET', '/api/v1/queries?search=least', { as: editor });
    assert.equal(stored.body.items.length, 1);
    assert.equal(stored.body.items[0].updatedByName, 'Eve Editor');

    // Back on the list: who changed it now, then rename and delete, all from the keyboard. The list shows its cached
    // copy while it reads again: the save wrote its answer there, so the row is right before the read answers.
    let held = await holdListReads(page);
    await page.getByRole('link', { name: 'All saved queries' }).click();
    await held.asked;
    assert.match(await page.getByRole('row', { name: /Sales by country/ }).innerText(), /by Eve Editor/);
    await held.release();
    await page.getByRole('button', { name: 'Rename Old report' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rename "Old report"' });
    await dialog.waitFor();
    await assertAccessible(page, 'rename dialog');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'sq-new-name');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Older report');
    held = await holdListReads(page);
    await page.keyboard.press('Enter');
    await held.asked;
    await page.getByRole('status').filter({ hasText: 'Renamed to "Older report".' }).waitFor();
    assert.deepEqual(await page.locator('tbody tr td:first-child a').allTextContents(), [
      'Sales by country',
      'Biggest sale',
      'Older report',
    ]);
    await held.release();
    await page.getByRole('button', { name: 'Delete Older report' }).click();
    await page.getByRole('dialog', { name: 'Delete "Older report"?' }).waitFor();
    await assertAccessible(page, 'delete dialog');
    held = await holdListReads(page);
    await page.getByRole('button', { name: 'Delete query' }).click();
    await held.asked;
    await page.getByRole('status').filter({ hasText: 'Deleted "Older report".' }).waitFor();
    // Gone from the list before its read answers: the delete took it out of the cached copy.
    assert.deepEqual(await page.locator('tbody tr td:first-child a').allTextContents(), [
      'Sales by country',
      'Biggest sale',
    ]);
    await held.release();
    await page.getByRole('row', { name: /Older report/ }).waitFor({ state: 'detached' });
    const left = await s.request('GET', '/api/v1/queries', { as: editor });
    assert.deepEqual(
      left.body.items.map((q: { name: string }) => q.name),
      ['Sales by country', 'Biggest sale'],
    );
  });

  test('the history lists the last runs across page loads, and a click opens one with its values', async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/sql`);
    await page.getByRole('heading', { level: 1, name: 'SQL editor' }).waitFor();
    await typeSql(page, 'SELECT amount FROM sales WHERE country = :land ORDER BY amount');
    await page.getByLabel('land', { exact: true }).fill('France');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^2 rows in \d+ ms\.$/ })
      .waitFor();
    await typeSql(page, 'SELECT count(*) AS n FROM sales');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^1 row in \d+ ms\.$/ })
      .waitFor();

    await page.reload();
    const history = page.getByRole('region', { name: 'Your recent runs' });
    await history.getByRole('button', { name: /SELECT count\(\*\) AS n FROM sales/ }).waitFor();
    const runs = await history.getByRole('listitem').allInnerTexts();
    assert.match(runs[0]!, /SELECT count\(\*\) AS n FROM sales[\s\S]*Shop, .*, 1 row/);
    assert.match(runs[1]!, /WHERE country = :land[\s\S]*2 rows/);
    await checkLooks(page, 'history');

    await history.getByRole('button', { name: /WHERE country = :land/ }).click();
    await page.getByRole('status').filter({ hasText: 'Opened a recent run in the editor.' }).waitFor();
    assert.equal(await editorText(page), 'SELECT amount FROM sales WHERE country = :land ORDER BY amount');
    assert.equal(await page.getByLabel('land', { exact: true }).inputValue(), 'France');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^2 rows in \d+ ms\.$/ })
      .waitFor();
  });

  test('a result becomes a chart on a new dashboard, then on that existing one; a widget edits its SQL with completion and keeps its rows', async () => {
    const page = await pages.open(editor);
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${s.url}/sql`);
    await page.getByRole('heading', { level: 1, name: 'SQL editor' }).waitFor();
    await typeSql(
      page,
      'SELECT country, sum(amount) AS total FROM sales WHERE amount >= :least GROUP BY country ORDER BY country',
    );
    await page.getByLabel('least', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^3 rows in \d+ ms\.$/ })
      .waitFor();

    const form = page.getByRole('form', { name: 'Make a chart' });
    await form.getByLabel('Chart kind').selectOption({ label: 'Bar chart' });
    await form.getByLabel('Chart title').fill('Totals');
    const [preview] = await drawn(page, 1);
    assert.equal(preview!.points, 3, 'the preview draws the three rows');
    assert.ok(preview!.painted > 1000, `the preview is painted (${preview!.painted})`);
    await form.getByLabel("New dashboard's title").fill('Country board');
    await checkLooks(page, 'make-a-chart');
    await form.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Country board' }).waitFor();
    const [onBoard] = await drawn(page, 1);
    assert.equal(onBoard!.points, 3);
    assert.ok(onBoard!.painted > 1000);
    const boardId = Number(/\/dashboards\/(\d+)/.exec(page.url())![1]);
    let board = await s.request('GET', `/api/v1/dashboards/${boardId}`, { as: editor });
    assert.deepEqual(board.body.definition.parameters, [{ name: 'least', type: 'text', default: '10' }]);
    assert.equal(board.body.definition.widgets[0].type, 'bar');
    assert.equal(board.body.definition.widgets[0].dataSourceId, sourceId);

    // A second chart on the dashboard that exists now.
    await page.goto(`${s.url}/sql`);
    await typeSql(page, 'SELECT country, count(*) AS sales FROM sales GROUP BY country ORDER BY country');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^3 rows in \d+ ms\.$/ })
      .waitFor();
    await form.getByLabel('Chart kind').selectOption({ label: 'Pie chart' });
    await form.getByLabel('Chart title').fill('Sales count');
    await form.getByLabel('A dashboard that exists').check();
    await form.getByLabel('Dashboard', { exact: true }).selectOption({ label: 'Country board' });
    await form.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Country board' }).waitFor();
    const both = await drawn(page, 2);
    assert.deepEqual(
      both.map((c) => c.points),
      [3, 3],
    );
    board = await s.request('GET', `/api/v1/dashboards/${boardId}`, { as: editor });
    assert.deepEqual(
      board.body.definition.widgets.map((w: { title: string; position: object }) => [w.title, w.position]),
      [
        ['Totals', { x: 0, y: 0, w: 6, h: 6 }],
        ['Sales count', { x: 6, y: 0, w: 6, h: 6 }],
      ],
    );

    // A new widget draws from the start; its SQL is edited in CodeMirror, which completes the source's tables.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Add widget' }).click();
    const panel = page.getByRole('region', { name: /^Configure widget/ });
    await panel.locator('.cm-content').waitFor();
    assert.equal(await panel.locator('textarea').count(), 0, 'no plain textarea for SQL');
    const three = await drawn(page, 3);
    assert.equal(three[2]!.points, 3, 'the new widget draws its starter rows');
    await checkLooks(page, 'widget-sql');
    await panel.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText('SELECT * FROM sal');
    const offered = page.locator('.cm-tooltip-autocomplete').getByText('sales');
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+Space');
      if (
        await offered.waitFor({ timeout: 5_000 }).then(
          () => true,
          () => false,
        )
      )
        break;
      assert.ok(attempt < 6, 'the completion offers the table "sales"');
      await page.keyboard.press('Escape');
    }
    // Escape closes the completion; the panel stays open (Escape outside the SQL closes it).
    await page.keyboard.press('Escape');
    assert.equal(await panel.count(), 1, 'Escape in the SQL editor leaves the panel open');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText('SELECT country, sum(amount) AS total FROM sales GROUP BY country ORDER BY country');
    await panel.getByLabel('Title').fill('Kept totals');
    await panel.getByLabel('Keep results for').selectOption({ label: '5 minutes' });
    await panel.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved as version \d+\.$/ })
      .waitFor();
    board = await s.request('GET', `/api/v1/dashboards/${boardId}`, { as: editor });
    assert.equal(board.body.definition.widgets[2].cacheSeconds, 300);

    // The widget keeps its rows: once read (here by the API, as the editor: the same role, so the same entry), the next
    // view says how old they are and offers to read them again.
    // The view after saving draws the widgets once; its runs end before the reload, so none is taken for the next view's.
    await drawn(page, 3);
    await page.waitForLoadState('networkidle');
    const read = await s.request('POST', `/api/v1/dashboards/${boardId}/widgets/w3/run`, {
      as: editor,
      body: { refresh: true },
    });
    // Read now, or by the view's own run under way at that moment (refresh joins a run in flight): kept either way.
    assert.ok(['database', 'shared'].includes(read.body.served), read.body.served);
    // Listened for once the new document is committed: a run answered to the view before it (a refetch under load)
    // would otherwise be taken, and its body is gone with that view.
    await page.reload({ waitUntil: 'commit' });
    const view = page.waitForResponse((r) => r.url().endsWith('/widgets/w3/run'));
    await page.getByRole('heading', { level: 1, name: 'Country board' }).waitFor();
    assert.equal((await (await view).json()).served, 'cache');
    await drawn(page, 3);
    const note = page.locator('.cache-note');
    await note.filter({ hasText: /^Cached less than a minute ago$/ }).waitFor();
    assert.equal(await note.count(), 1, 'only the widget with a cache time says so');
    await checkLooks(page, 'cached-widget');
    const reread = page.waitForResponse((r) => r.url().endsWith('/widgets/w3/run'));
    await page.getByRole('button', { name: 'Refresh Kept totals' }).click();
    const answer = await reread;
    assert.equal(JSON.parse(answer.request().postData() ?? '{}').refresh, true);
    assert.equal((await answer.json()).served, 'database');
    await note.waitFor({ state: 'detached' });
    assert.deepEqual(errors, [], 'no errors in the console (CSP refusals would show here)');
  });

  test('chained query parameters: the cities follow the country chosen, and the widget follows the city', async () => {
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE places (country text NOT NULL, city text NOT NULL, people int NOT NULL);
      INSERT INTO places VALUES ('France', 'Paris', 2100), ('France', 'Lyon', 520), ('Japan', 'Osaka', 2700),
        ('Japan', 'Tokyo', 14000);`);
    await c.end();
    const definition = {
      layout: { type: 'grid', columns: 12, rowHeight: 40 },
      dataSources: [{ id: sourceId }],
      parameters: [
        {
          name: 'country',
          type: 'query',
          label: 'Country',
          dataSourceId: sourceId,
          query: 'SELECT DISTINCT country FROM places ORDER BY country',
        },
        {
          name: 'city',
          type: 'query',
          label: 'City',
          dataSourceId: sourceId,
          query: 'SELECT city FROM places WHERE country = :country ORDER BY city',
        },
      ],
      widgets: [
        {
          id: 'people',
          type: 'stat',
          title: 'People',
          position: { x: 0, y: 0, w: 4, h: 3 },
          dataSourceId: sourceId,
          query: 'SELECT people FROM places WHERE city = :city',
        },
      ],
    };
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'places', title: 'Places', definition },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    const viewer = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Vic Viewer' });
    const page = await pages.open(viewer);
    await page.goto(`${s.url}/dashboards/${d.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Places' }).waitFor();
    const country = page.getByLabel('Country', { exact: true });
    const city = page.getByLabel('City', { exact: true });
    const options = (select: typeof city) => select.locator('option').allTextContents();
    const stat = page.locator('.stat-value');
    // The first country and its first city are taken, and the widget draws that city.
    await stat.filter({ hasText: /^520$/ }).waitFor();
    assert.deepEqual(await options(country), ['France', 'Japan']);
    assert.deepEqual(await options(city), ['Lyon', 'Paris']);
    await checkLooks(page, 'chained-parameters');

    await country.selectOption('Japan');
    await page.waitForFunction(() => document.querySelector('#param-city')?.value === 'Osaka');
    assert.deepEqual(await options(city), ['Osaka', 'Tokyo']);
    await stat.filter({ hasText: /^2,?700$/ }).waitFor();
    // With the keyboard: the city select, one down.
    await city.focus();
    await page.keyboard.press('ArrowDown');
    await stat.filter({ hasText: /^14,?000$/ }).waitFor();
    assert.equal(await country.inputValue(), 'Japan');
  });

  test('bad values on the new routes are clear 400s', async () => {
    const r = await s.request('GET', '/api/v1/queries?search=', { as: editor });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  });
});
