import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { freshMysql, type FreshMysqlDatabase } from '../support/mariadb.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, screenshot } from './web/browser.ts';
import { gapBetween } from '../support/console-browser.ts';

/**
 * Data sources and the SQL editor in Chromium. People are signed in through the CLI's token command here
 * (a real session); signing in through the identity service's pages is web-app.test.ts's subject.
 */
describe('the dashboard web app: data sources and the SQL editor', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let maria: FreshMysqlDatabase;
  let browser: Browser;
  let admin: SignedIn;
  let viewer: SignedIn;

  before(async () => {
    target = await freshPostgres('webtarget');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount numeric(10,2));
      INSERT INTO orders SELECT g, CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END, g * 10 FROM generate_series(1, 60) g;`);
    await c.end();
    maria = await freshMysql('webtarget');
    s = await startDashboard('dashwebdata');
    admin = await s.signIn({ tenant: 'acme', role: 'admin', name: 'Ada' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Vic' });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await target?.drop();
    await maria?.drop();
  });

  const pageAs = async (who: SignedIn): Promise<Page> => {
    const context = await browser.newContext({ acceptDownloads: true });
    const pair = {
      accessToken: who.accessToken,
      refreshToken: who.refreshToken,
      expiresIn: who.expiresIn,
      tokenType: 'Bearer',
    };
    await context.addInitScript((p) => localStorage.setItem('dashboard.session', p), JSON.stringify(pair));
    return context.newPage();
  };

  test('an admin adds a PostgreSQL and a MariaDB source, tests them, edits one (URL shown only as set), browses the schema', async () => {
    const page = await pageAs(admin);
    await page.goto(`${s.url}/datasources`);
    await page.getByRole('heading', { level: 1, name: 'Data sources' }).waitFor();
    await page.getByText('No data sources yet. Add one to start querying.').waitFor();

    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByLabel('Short name').fill('shop');
    await page.getByLabel('Connection URL').fill(target.url);
    await assertAccessible(page, 'add data source form');
    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByRole('status').filter({ hasText: 'Data source Shop added.' }).waitFor();

    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Legacy');
    await page.getByLabel('Short name').fill('legacy');
    await page.getByLabel('Database').selectOption('mysql');
    await page.getByLabel('Connection URL').fill(maria.url);
    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByRole('status').filter({ hasText: 'Data source Legacy added.' }).waitFor();

    // A refused URL is explained in the form, not a crash.
    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Broken');
    await page.getByLabel('Short name').fill('broken');
    await page.getByLabel('Connection URL').fill('http://not-a-database.example/');
    await page.getByRole('button', { name: 'Add data source' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /postgres/i);
    // The last add's notice went when the form opened: it does not sit beside this refusal as if it were its answer.
    assert.deepEqual(
      (await page.getByRole('status').allTextContents()).filter((t) => t.includes('added')),
      [],
    );
    await page.getByRole('button', { name: 'Cancel' }).click();
    // The list is set apart from the button above it (they touched).
    const gap = await gapBetween(
      page.getByRole('button', { name: 'Add data source' }),
      page.getByRole('table', { name: 'Data sources' }),
    );
    assert.ok(gap >= 8, `${gap} px between Add data source and the list`);

    await page.getByRole('button', { name: 'Test Shop' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Shop: connection succeeded in \d+ ms\.$/ })
      .waitFor();
    await page.getByRole('button', { name: 'Test Legacy' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Legacy: connection succeeded in \d+ ms\.$/ })
      .waitFor();
    await page.getByRole('row', { name: /Shop/ }).getByRole('cell').nth(2).filter({ hasNotText: 'never' }).waitFor();

    await page.getByRole('button', { name: 'Edit Shop' }).click();
    await page.getByText('Currently: set; leave empty to keep it.').waitFor();
    assert.equal(await page.getByLabel('Connection URL').inputValue(), '', 'the stored URL never comes back');
    assert.doesNotMatch(await page.content(), new RegExp(target.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await page.getByLabel('Name', { exact: true }).fill('Shop DB');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Data source Shop DB saved.' }).waitFor();

    await page.getByRole('button', { name: 'Schema of Shop DB' }).click();
    await page
      .locator('summary')
      .filter({ hasText: /^orders \(table, 3 columns\)$/ })
      .click();
    await page
      .locator('.schema li li')
      .filter({ hasText: /^region text, not null$/ })
      .waitFor();
    await assertAccessible(page, 'data sources screen');
    await screenshot(page, '10-data-sources');
    // At 320 px (WCAG 1.4.10) the table scrolls sideways in its own region, which the keyboard can reach; the page does not.
    await page.setViewportSize({ width: 320, height: 700 });
    const region = page.getByRole('region', { name: 'Data sources' });
    await page
      .waitForFunction('document.documentElement.scrollWidth <= 320', undefined, { timeout: 5_000 })
      .catch(() => undefined);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 320, 'no sideways scrolling of the page');
    assert.ok(await region.evaluate((e) => e.scrollWidth > e.clientWidth), 'the table scrolls inside its region');
    assert.equal(await region.getAttribute('tabindex'), '0');
    await assertAccessible(page, 'data sources screen at 320 px');
  });

  test('a query with a parameter shows rows, pages through them, reports errors in a live region and is saved', async () => {
    const page = await pageAs(admin);
    // The editor opens on the first source (Legacy) and fetches its schema, then Shop DB is chosen. Legacy's schema is
    // held back until Shop DB's has been answered, as a slow database would: the late answer must not replace it.
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstDone = () => {};
    const firstSettled = new Promise<void>((resolve) => {
      firstDone = resolve;
    });
    let schemaRequests = 0;
    await page.route(/\/api\/v1\/datasources\/\d+\/schema\?columns=true$/, async (route) => {
      const n = ++schemaRequests;
      try {
        if (n === 1) await firstHeld;
        await route.fulfill({ response: await route.fetch() });
      } catch {
        // The page gave the request up (it no longer wants that source's schema): nothing to answer.
      } finally {
        if (n === 1) firstDone();
        if (n === 2) releaseFirst();
      }
    });
    await page.goto(`${s.url}/`);
    await page.getByRole('link', { name: 'SQL editor' }).click();
    await page.getByRole('heading', { level: 1, name: 'SQL editor' }).waitFor();
    const editor = page.locator('.cm-content');
    const bodies: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/query')) bodies.push(r.postData() ?? '');
    });
    await editor.waitFor();
    await page.getByLabel('Data source').selectOption({ label: 'Shop DB' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('SELECT id, region, amount FROM orders WHERE region = :region ORDER BY id');
    await page.keyboard.press('Escape');
    await page.getByLabel('region', { exact: true }).fill('north');
    await editor.click();
    await page.keyboard.press('Control+Enter');
    await page
      .getByRole('status')
      .filter({ hasText: /^30 rows in \d+ ms\.$/ })
      .waitFor({ timeout: 8000 })
      .catch(async (err) => {
        throw new Error(
          `${err}: status "${await page.locator('.status').allTextContents()}", alert "${await page.locator('[role=alert]').allTextContents()}", editor "${await editor.textContent()}" sent ${bodies.join(' | ').replace(/\u00a0/g, '<NBSP>')}`,
        );
      });
    // CodeMirror's styles are in force under the page's CSP (no inline <style>): its gutter is laid out.
    assert.equal(
      await page.locator('.cm-editor').evaluate((e) => (globalThis as any).getComputedStyle(e).display),
      'flex',
    );
    // The count is given once, in the status line that announces the run; the results' table is named without it. The
    // history of past runs lists each run's count as its own record, and "Make a chart" previews the chart as a
    // dashboard would draw it (with its own note on the rows read): both are left out here.
    const main = page.locator('main');
    const screenText = () =>
      main.evaluate((m: any) => {
        const copy = m.cloneNode(true);
        copy.querySelector('.history')?.remove();
        copy.querySelector('.chart-from-result')?.remove();
        return copy.textContent as string;
      });
    assert.equal(
      (await screenText()).match(/(?<!\d)30 rows\b/g)?.length,
      1,
      `the row count once on the screen: "${await screenText()}"`,
    );
    assert.equal(await page.getByRole('table', { name: 'Result rows', exact: true }).count(), 1);
    const firstPage = await page.getByRole('region', { name: 'Result rows' }).locator('tbody tr').count();
    assert.equal(firstPage, 25);
    assert.equal(await page.locator('tbody tr').first().locator('td').first().textContent(), '2');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    assert.equal(await page.locator('tbody tr').count(), 5);
    await assertAccessible(page, 'SQL editor with results');
    await screenshot(page, '11-sql-editor');
    // The editor's highlighting, gutter and selection follow the dark scheme too (the default ones are for light pages).
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'SQL editor with results (dark)');
    await screenshot(page, '11-sql-editor-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // A new result starts at its first page: three rows after page 2 of the last result (shown as none before).
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('SELECT id FROM orders WHERE id <= 3 ORDER BY id');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^3 rows in \d+ ms\.$/ })
      .waitFor();
    assert.equal(await page.getByRole('region', { name: 'Result rows' }).locator('tbody tr').count(), 3);
    assert.equal(await page.getByRole('navigation', { name: 'Result pages' }).count(), 0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^shop-db-results-\d{4}-\d{2}-\d{2}\.csv$/);
    assert.equal(await readFile(await download.path(), 'utf8'), '\uFEFFid\r\n1\r\n2\r\n3\r\n');

    // Completion offers the source's tables.
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('SELECT * FROM ord');
    // The tables come with the source's schema, fetched when the source is chosen; on a loaded machine it may arrive after
    // the first request for completion, so ask again (the editor takes the schema in when it comes) a bounded number of times.
    assert.equal(schemaRequests, 2, 'one schema request per source chosen');
    await firstSettled;
    const offered = page.locator('.cm-tooltip-autocomplete').getByText('orders');
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+Space');
      const shown = await offered.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      );
      if (shown) break;
      assert.ok(attempt < 6, 'the completion offers the table "orders"');
      await page.keyboard.press('Escape');
    }
    await page.keyboard.press('Escape');

    // An error of the database is announced; nothing runs twice.
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('SELECT nope FROM orders');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /column "nope" does not exist/ })
      .waitFor();

    // More rows than the 1,000 read: the status line says so, again the only place with the count.
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('SELECT g FROM generate_series(1, 1500) g');
    await page.getByRole('button', { name: 'Run' }).click();
    const truncated = page
      .getByRole('status')
      .filter({ hasText: /^1000 rows in \d+ ms\. The service stopped reading there; more rows exist\.$/ });
    await truncated.waitFor();
    assert.equal(
      (await screenText()).match(/(?<!\d)1000 rows\b/g)?.length,
      1,
      `the row count once on the screen: "${await screenText()}"`,
    );
    assert.equal(await page.getByRole('region', { name: 'Result rows' }).locator('tbody tr').count(), 25);

    await page.keyboard.press('ControlOrMeta+a');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('SELECT region, sum(amount) AS total FROM orders GROUP BY region ORDER BY region');
    await page.getByLabel('Query name').fill('Totals by region');
    await page.getByRole('button', { name: 'Save query' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as "Totals by region".' }).waitFor();
    assert.equal(
      await truncated.count(),
      1,
      'saving has its own status line: the count of the results still shown stays',
    );
    const saved = await s.request('GET', '/api/v1/queries', { as: admin });
    assert.equal(saved.body.items.length, 1);
    assert.equal(
      saved.body.items[0].query,
      'SELECT region, sum(amount) AS total FROM orders GROUP BY region ORDER BY region',
    );
  });

  test('a viewer sees the sources but no edit, test or SQL controls', async () => {
    const page = await pageAs(viewer);
    await page.goto(`${s.url}/datasources`);
    await page.getByRole('row', { name: /Shop DB/ }).waitFor();
    for (const name of ['Add data source', 'Test Shop DB', 'Edit Shop DB', 'Delete Shop DB', 'Schema of Shop DB']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    assert.equal(await page.getByRole('link', { name: 'SQL editor' }).count(), 0);
    await assertAccessible(page, 'data sources as a viewer');
  });

  test('an admin deletes a source after confirming', async () => {
    const page = await pageAs(admin);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${s.url}/datasources`);
    // The console asks in its own dialog (the browser's confirm() drew a box in neither theme): it says what goes
    // with the source, starts on Cancel, and Escape keeps the source and gives the focus back to its button.
    const remove = page.getByRole('button', { name: 'Delete Legacy' });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Delete the data source Legacy?' });
    await dialog.getByText('Its saved queries and the alert rules watching them are deleted with it').waitFor();
    assert.equal(
      await page.evaluate(() => (globalThis as any).document.activeElement?.textContent),
      'Cancel',
      'the focus starts on Cancel',
    );
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await assertAccessible(page, `delete dialog, ${colorScheme}`);
      await screenshot(page, `data-delete-dialog-${colorScheme}`, { fullPage: false });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await remove.evaluate((b) => b === (globalThis as any).document.activeElement), true);
    assert.equal((await s.request('GET', '/api/v1/datasources', { as: admin })).body.dataSources.length, 2);
    await remove.click();
    await dialog.getByRole('button', { name: 'Delete data source' }).click();
    await page.getByRole('status').filter({ hasText: 'Legacy deleted.' }).waitFor();
    assert.deepEqual(dialogs, [], "no browser's dialog opened");
    assert.equal(await page.getByRole('row', { name: /Legacy/ }).count(), 0);
    assert.equal((await s.request('GET', '/api/v1/datasources', { as: admin })).body.dataSources.length, 1);
  });

  test("a source whose SQL is for admins: the form sets it, the list says so, an editor's SQL editor does not offer it", async () => {
    const page = await pageAs(admin);
    await page.goto(`${s.url}/datasources`);
    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByLabel('Name', { exact: true }).fill('HR');
    await page.getByLabel('Short name').fill('hr');
    await page.getByLabel('Connection URL').fill(target.url);
    await page.getByLabel('Who may write SQL on it').selectOption({ label: 'Admins and owners' });
    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByRole('status').filter({ hasText: 'Data source HR added.' }).waitFor();
    assert.match(await page.getByRole('row', { name: /^HR/ }).innerText(), /read-only; SQL by admins and owners/);
    const hr = (await s.request('GET', '/api/v1/datasources', { as: admin })).body.dataSources.find(
      (d: { slug: string }) => d.slug === 'hr',
    );
    assert.equal(hr.sqlRole, 'admin');

    const editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Ed' });
    const theirs = await pageAs(editor);
    await theirs.goto(`${s.url}/sql`);
    const select = theirs.getByLabel('Data source');
    await select.waitFor();
    const options = await select
      .locator('option')
      .evaluateAll((os) => os.map((o) => [o.textContent, (o as unknown as { disabled: boolean }).disabled]));
    assert.deepEqual(options, [
      ['HR (SQL by admins and owners)', true],
      ['Shop DB', false],
    ]);
    assert.equal(
      await select.inputValue(),
      String(
        (await s.request('GET', '/api/v1/datasources', { as: admin })).body.dataSources.find(
          (d: { slug: string }) => d.slug !== 'hr',
        ).id,
      ),
      'the editor starts on a source they may query',
    );
    await assertAccessible(theirs, 'SQL editor with a source for admins');
  });
});
