import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { AUDIT_ACTIONS } from '../../src/dashboard/audit/actions.ts';
import { startServer, type Server } from '../identity/support.ts';
import { freePort, startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, screenshot } from './web/browser.ts';
import { assertNarrowBothSchemes } from '../support/console-browser.ts';

/**
 * The admin screens (users and roles, tenants, the audit log) in Chromium, and what each role is offered.
 * People are signed in through the CLI's token command (a real session); signing in through the identity
 * service's pages is web-app.test.ts's subject.
 */
const PASSWORD = 'correct horse battery staple';

describe('the dashboard web app: users, tenants, audit log, and what each role is offered', () => {
  let s: DashboardServer;
  let idp: Server;
  let browser: Browser;
  let owner: SignedIn;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  const consoleErrors: string[] = [];

  before(async () => {
    // The platform's identity service as the sign-in provider, for entering a tenant just created.
    const port = await freePort();
    idp = await startServer('adminidp');
    const client = await idp.registerApp({
      name: 'Dashboards',
      appType: 'web',
      redirectUris: [`http://localhost:${port}/api/v1/auth/platform/callback`],
      allowedScopes: ['openid', 'email', 'profile'],
      firstParty: true,
    });
    await idp.createHuman('olga@acme.example', PASSWORD);
    s = await startDashboard('dashadmin', {
      DASHBOARD_PORT: String(port),
      DASHBOARD_OIDC_PROVIDERS: JSON.stringify([
        { id: 'platform', issuer: idp.issuer, clientId: client.clientId, clientSecret: client.secret },
      ]),
    });
    owner = await s.signIn({ tenant: 'acme', role: 'owner', name: 'Olga Owner', email: 'olga@acme.example' });
    admin = await s.signIn({ tenant: 'acme', role: 'admin', name: 'Ada Admin', email: 'ada@acme.example' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Eddie Editor', email: 'eddie@acme.example' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Vic Viewer', email: 'vic@acme.example' });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await idp?.close();
  });

  const pageAs = async (who: SignedIn, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> => {
    const context = await browser.newContext({ colorScheme });
    const pair = {
      accessToken: who.accessToken,
      refreshToken: who.refreshToken,
      expiresIn: who.expiresIn,
      tokenType: 'Bearer',
    };
    await context.addInitScript((p) => localStorage.setItem('dashboard.session', p), JSON.stringify(pair));
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    return page;
  };
  const userByEmail = async (email: string) =>
    (await s.request('GET', '/api/v1/admin/users?limit=100', { as: owner })).body.items.find(
      (u: { email: string }) => u.email === email,
    );
  const nav = async (page: Page) =>
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

  test('an owner adds a user, changes their role, deactivates and reactivates them; the screen passes axe in light and dark', async () => {
    const page = await pageAs(owner);
    await page.goto(`${s.url}/admin/users`);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    assert.equal(await page.title(), 'Users · Platform console');
    assert.deepEqual(await nav(page), [
      'Home',
      'Dashboards',
      'Alerts',
      'Data sources',
      'SQL editor',
      'Saved queries',
      'Users',
      'Tenants',
      'Audit log',
    ]);
    assert.match((await page.locator('.who').textContent()) ?? '', /Olga Owner \(owner\)/);
    await page.getByRole('row', { name: /Vic Viewer/ }).waitFor();
    await assertAccessible(page, 'users screen');
    await screenshot(page, 'admin-01-users');

    await page.getByRole('button', { name: 'Add user' }).click();
    assert.deepEqual(
      await page.getByLabel('Role', { exact: true }).locator('option').allTextContents(),
      ['Viewer', 'Editor', 'Admin', 'Owner'],
      'an owner may make owners',
    );
    await page.getByLabel('Email', { exact: true }).fill('nina@acme.example');
    await page.getByLabel('Name', { exact: true }).fill('Nina New');
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await assertAccessible(page, 'add user form');
    await screenshot(page, 'admin-02-add-user');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('status').filter({ hasText: 'Nina New (nina@acme.example) is added as editor.' }).waitFor();
    await page.getByRole('row', { name: /Nina New/ }).waitFor();
    assert.equal((await userByEmail('nina@acme.example')).role, 'editor');

    // The same email again: the API's conflict is shown in the form, in an alert.
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByLabel('Email', { exact: true }).fill('NINA@acme.example');
    await page.getByLabel('Name', { exact: true }).fill('Nina Again');
    await page.getByRole('button', { name: 'Add user' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /already exists/);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Change role of Nina New' }).click();
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByRole('status').filter({ hasText: 'Nina New is now admin.' }).waitFor();
    assert.equal((await userByEmail('nina@acme.example')).role, 'admin');

    await page.getByRole('button', { name: 'Deactivate Nina New' }).click();
    await page
      .getByRole('dialog', { name: 'Deactivate Nina New?' })
      .getByRole('button', { name: 'Deactivate' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Nina New is deactivated.' }).waitFor();
    assert.equal((await userByEmail('nina@acme.example')).active, false);
    await page.getByRole('button', { name: 'Reactivate Nina New' }).click();
    await page.getByRole('status').filter({ hasText: 'Nina New is active again' }).waitFor();
    assert.equal((await userByEmail('nina@acme.example')).active, true);
    // Nobody is offered to change or deactivate themselves.
    assert.equal(await page.getByRole('button', { name: 'Deactivate Olga Owner' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Change role of Olga Owner' }).count(), 0);

    const dark = await pageAs(owner, 'dark');
    await dark.goto(`${s.url}/admin/users`);
    await dark.getByRole('row', { name: /Nina New/ }).waitFor();
    assert.equal(
      await dark.evaluate(() => {
        const w = globalThis as unknown as {
          getComputedStyle(e: unknown): { backgroundColor: string };
          document: { body: unknown };
        };
        return w.getComputedStyle(w.document.body).backgroundColor;
      }),
      'rgb(18, 20, 23)',
      'the dark theme is in use',
    );
    await assertAccessible(dark, 'users screen, dark');
    await screenshot(dark, 'admin-03-users-dark');
  });

  test('an owner creates a tenant and changes its plan (rate-limit tier), then signs in to it', async () => {
    // A session of its own: signing out at the end ends this one, not the one the other tests use.
    const page = await pageAs({ ...owner, ...(await s.token('acme', owner.email)) });
    await page.goto(`${s.url}/admin/tenants`);
    await page.getByRole('heading', { level: 1, name: 'Tenants' }).waitFor();
    await page.getByRole('row', { name: /Tenant acme/ }).waitFor();
    await assertAccessible(page, 'tenants screen');

    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Beta Labs');
    assert.equal(await page.getByLabel('Short name', { exact: true }).inputValue(), 'beta-labs');
    await page.getByLabel('Plan', { exact: true }).selectOption('pro');
    await assertAccessible(page, 'create tenant form');
    await screenshot(page, 'admin-04-create-tenant');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('status').filter({ hasText: 'Tenant Beta Labs created with you as its owner.' }).waitFor();
    await page.getByRole('row', { name: /Beta Labs/ }).waitFor();

    await page.getByRole('button', { name: 'Edit Beta Labs' }).click();
    await page.getByLabel('Plan', { exact: true }).selectOption('enterprise');
    await page.getByRole('button', { name: 'Save tenant' }).click();
    await page.getByRole('status').filter({ hasText: 'Beta Labs saved: plan Enterprise.' }).waitFor();
    const tenants = (await s.request('GET', '/api/v1/admin/tenants', { as: owner })).body.items;
    assert.equal(tenants.find((t: { slug: string }) => t.slug === 'beta-labs').plan, 'enterprise');

    // A taken short name is explained, not a crash.
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Beta Labs');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /already exists/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await screenshot(page, 'admin-05-tenants');

    const dark = await pageAs(owner, 'dark');
    await dark.goto(`${s.url}/admin/tenants`);
    await dark.getByRole('row', { name: /Beta Labs/ }).waitFor();
    await assertAccessible(dark, 'tenants screen, dark');

    // Into the new tenant: sign out, name it on the sign-in screen, sign in through the identity service.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Tenant (optional)').fill('beta-labs');
    await assertAccessible(page, 'sign-in screen with the tenant field');
    await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
    await page.getByLabel('Email address').fill('olga@acme.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const allow = page.getByRole('button', { name: 'Allow' });
    const welcome = page.getByRole('heading', { level: 1, name: /Welcome/ });
    await Promise.race([allow.waitFor(), welcome.waitFor()]);
    if (await allow.isVisible()) await allow.click();
    await welcome.waitFor();
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByRole('row', { name: /Olga Owner \(you\)/ }).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1, 'beta-labs has its owner only');
  });

  test('the audit log: filter by who, action and time, page through it', async () => {
    // 30 more records, so the log has more than one page of 25.
    for (let i = 0; i < 30; i++) {
      const r = await s.request('POST', '/api/v1/admin/users', {
        as: admin,
        body: { email: `bulk${i}@acme.example`, name: `Bulk ${i}`, role: 'viewer' },
      });
      assert.equal(r.status, 201);
    }
    const page = await pageAs(admin);
    await page.goto(`${s.url}/admin/audit`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const status = page.getByRole('status');
    await status.filter({ hasText: 'Page 1: 25 records, more on the next page.' }).waitFor();
    await assertAccessible(page, 'audit log');
    await screenshot(page, 'admin-06-audit');

    await page.getByRole('button', { name: 'Next page' }).click();
    await status.filter({ hasText: /^Page 2: \d+ records?\.$/ }).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await status.filter({ hasText: 'Page 1: 25 records' }).waitFor();

    // Every action the service records is offered (its own list, audit/actions.ts), subscriptions and alerts too.
    const offered = await page
      .getByLabel('Action', { exact: true })
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.deepEqual(offered, ['', ...AUDIT_ACTIONS]);
    await page.getByLabel('Action', { exact: true }).selectOption('user.role_change');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await status.filter({ hasText: 'Page 1: 1 record.' }).waitFor();
    const rows = page.getByRole('region', { name: 'Audit records' }).getByRole('row');
    assert.equal(await rows.count(), 2, 'the header and one record');
    const record = (await rows.nth(1).textContent()) ?? '';
    assert.match(record, /Olga Owner.*user\.role_change.*User “Nina New”/);
    assert.match(record, /from: editor/);
    assert.match(record, /to: admin/);

    await page.getByLabel('Action', { exact: true }).selectOption('');
    await page.getByLabel('Who', { exact: true }).selectOption({ label: 'Ada Admin (ada@acme.example)' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await status.filter({ hasText: 'Page 1: 25 records, more on the next page.' }).waitFor();
    assert.ok(
      (
        await page.getByRole('region', { name: 'Audit records' }).locator('tbody tr td:nth-child(2)').allTextContents()
      ).every((t) => t === 'Ada Admin'),
    );

    // A time range in the future matches nothing; one ending before the start is refused before asking.
    await page.getByLabel('From', { exact: true }).fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await status.filter({ hasText: 'No records match.' }).waitFor();
    await page.getByLabel('To', { exact: true }).fill('2098-01-01T00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    assert.equal(await page.getByRole('alert').textContent(), '"From" must be earlier than "To".');
    await assertAccessible(page, 'audit log with an error');
    await page.getByRole('button', { name: 'Clear' }).click();
    await status.filter({ hasText: 'Page 1: 25 records' }).waitFor();

    const dark = await pageAs(admin, 'dark');
    await dark.goto(`${s.url}/admin/audit`);
    await dark.getByRole('status').filter({ hasText: 'Page 1' }).waitFor();
    await assertAccessible(dark, 'audit log, dark');
    await screenshot(dark, 'admin-07-audit-dark');
    // At 320 px "Who", which names each user with their email, stays within the screen, and a record's details are
    // read a few words a line, not a word or two (a row was fifteen lines tall).
    await assertNarrowBothSchemes(dark, 'audit log', 'admin-08-audit');
    await dark.setViewportSize({ width: 320, height: 800 });
    const details = dark.getByRole('region', { name: 'Audit records' }).locator('tbody tr td:nth-child(5)').first();
    const width = (await details.boundingBox())?.width ?? 0;
    assert.ok(width >= 250, `the details column is ${width} px wide at 320 px`);
  });

  test('the audit API filters by time: since and until checked, a bad value is 400', async () => {
    const all = await s.request('GET', '/api/v1/audit?limit=100', { as: admin });
    const newest = all.body.items[0];
    const at = await s.request('GET', `/api/v1/audit?since=${encodeURIComponent(newest.createdAt)}&limit=100`, {
      as: admin,
    });
    assert.equal(at.status, 200);
    assert.ok(
      at.body.items.some((r: { id: number }) => r.id === newest.id),
      'since is inclusive',
    );
    const before = await s.request('GET', `/api/v1/audit?until=${encodeURIComponent(newest.createdAt)}&limit=100`, {
      as: admin,
    });
    assert.ok(
      before.body.items.every((r: { createdAt: string }) => r.createdAt < newest.createdAt),
      'until is exclusive',
    );
    for (const q of [
      'since=yesterday',
      'until=2026-13-01T00:00:00Z',
      'since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z',
    ]) {
      const r = await s.request('GET', `/api/v1/audit?${q}`, { as: admin });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', q);
    }
  });

  test('keyboard only: an admin adds a user with Tab, typing and Enter; focus is always visible', async () => {
    const page = await pageAs(admin);
    await page.goto(`${s.url}/admin/users`);
    await page.getByRole('row', { name: /Vic Viewer/ }).waitFor();
    const focused = () =>
      page.evaluate(() => {
        type El = { id: string; textContent: string | null; getAttribute(n: string): string | null };
        const w = globalThis as unknown as {
          document: { activeElement: El };
          getComputedStyle(e: El): { outlineStyle: string; outlineWidth: string };
        };
        const el = w.document.activeElement;
        const style = w.getComputedStyle(el);
        return {
          text: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim(),
          id: el.id,
          outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px',
        };
      });
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press('Tab');
      const f = await focused();
      assert.ok(f.outline || f.id === 'main', `focus visible on "${f.text}"`);
      reached = f.text === 'Add user';
    }
    assert.ok(reached, 'Add user is reachable with Tab');
    await page.keyboard.press('Enter');
    assert.equal((await focused()).id, 'user-email', 'the form opens with focus in its first field');
    await page.keyboard.type('kim@acme.example');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Kim Keys');
    await page.keyboard.press('Tab');
    assert.equal((await focused()).id, 'user-role');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.getByLabel('Role', { exact: true }).inputValue(), 'editor');
    assert.deepEqual(
      await page.getByLabel('Role', { exact: true }).locator('option').allTextContents(),
      ['Viewer', 'Editor', 'Admin'],
      'an admin is not offered the owner role',
    );
    await page.keyboard.press('Tab');
    const submit = await focused();
    assert.equal(submit.text, 'Add user');
    assert.ok(submit.outline, 'the submit button shows focus');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Kim Keys (kim@acme.example) is added as editor.' }).waitFor();
    assert.equal((await userByEmail('kim@acme.example')).role, 'editor');
    assert.equal((await focused()).text, 'Add user', 'focus returns to the button that opened the form');
    await screenshot(page, 'admin-08-keyboard-added');
  });

  test('what each role is offered: a viewer and an editor see no admin nav, an admin no tenants; the API answers 403 anyway', async () => {
    const created = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: s.database.url },
    });
    assert.equal(created.status, 201);

    const v = await pageAs(viewer);
    await v.goto(`${s.url}/datasources`);
    await v.getByRole('row', { name: /Shop/ }).waitFor();
    assert.deepEqual(await nav(v), ['Home', 'Dashboards', 'Alerts', 'Data sources', 'Saved queries']);
    assert.match((await v.locator('.who').textContent()) ?? '', /Vic Viewer \(viewer\)/);
    for (const name of ['Add data source', 'Test Shop', 'Edit Shop', 'Delete Shop', 'Schema of Shop'])
      assert.equal(await v.getByRole('button', { name }).count(), 0, name);
    for (const path of ['/admin/users', '/admin/audit', '/admin/tenants']) {
      await v.goto(`${s.url}${path}`);
      await v.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
      assert.equal(
        await v
          .getByRole('button')
          .filter({ hasText: /Add user|Create tenant|Apply filters/ })
          .count(),
        0,
        path,
      );
    }
    await assertAccessible(v, 'not available screen');
    await v.goto(`${s.url}/sql`);
    await v.getByRole('heading', { level: 1, name: /Welcome/ }).waitFor();
    assert.equal(await v.locator('.cm-editor').count(), 0, 'no SQL editor for a viewer');
    await screenshot(v, 'admin-09-viewer');

    const e = await pageAs(editor);
    await e.goto(`${s.url}/`);
    await e.getByRole('heading', { level: 1, name: /Welcome/ }).waitFor();
    assert.deepEqual(await nav(e), ['Home', 'Dashboards', 'Alerts', 'Data sources', 'SQL editor', 'Saved queries']);

    const a = await pageAs(admin);
    await a.goto(`${s.url}/admin/users`);
    await a.getByRole('row', { name: /Olga Owner/ }).waitFor();
    assert.deepEqual(await nav(a), [
      'Home',
      'Dashboards',
      'Alerts',
      'Data sources',
      'SQL editor',
      'Saved queries',
      'Users',
      'Audit log',
    ]);
    for (const name of ['Change role of Olga Owner', 'Deactivate Olga Owner'])
      assert.equal(await a.getByRole('button', { name }).count(), 0, `an admin is not offered: ${name}`);
    assert.equal(await a.getByRole('button', { name: 'Change role of Eddie Editor' }).count(), 1);

    for (const [who, path, method, body] of [
      [viewer, '/api/v1/admin/users', 'GET'],
      [viewer, '/api/v1/audit', 'GET'],
      [viewer, '/api/v1/admin/tenants', 'GET'],
      [editor, '/api/v1/admin/users', 'GET'],
      [editor, '/api/v1/audit', 'GET'],
      [editor, '/api/v1/admin/users', 'POST', { email: 'x@acme.example', name: 'X', role: 'viewer' }],
      [admin, '/api/v1/admin/tenants', 'GET'],
      [admin, '/api/v1/admin/tenants', 'POST', { slug: 'nope', name: 'Nope' }],
      [admin, '/api/v1/admin/users', 'POST', { email: 'o2@acme.example', name: 'O2', role: 'owner' }],
      [admin, `/api/v1/admin/users/${owner.userId}`, 'PATCH', { role: 'viewer' }],
    ] as [SignedIn, string, string, unknown?][]) {
      const r = await s.request(method, path, { as: who, ...(body ? { body } : {}) });
      assert.equal(r.status, 403, `${who.role} ${method} ${path}`);
      assert.equal(r.body.error.code, 'FORBIDDEN');
    }

    // Signing out ends the session on the server.
    await a.getByRole('button', { name: 'Sign out' }).click();
    await a.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: admin })).status, 401);
    assert.deepEqual(
      consoleErrors.filter((m) => !/401|403|Failed to load resource/.test(m)),
      [],
      'no CSP violation or script error',
    );
  });
});
