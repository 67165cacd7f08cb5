import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { startConsole, type ConsoleHarness } from '../support/console-screens.ts';
import { filterFieldEdges, focused, openFromNav } from '../support/console-browser.ts';

/**
 * Events → Live events and Explorer in the console (Chromium; identity, the dashboard and ingest linked as `platform
 * start` links them; the owner signs in through identity and calls ingest with that token, the `events` right). Event
 * payloads come from any page holding a project's public key: hostile ones are shown as text and nothing runs.
 */
const INGEST_ADMIN_TOKEN = 'events-console-admin-token-0123456789';
const HOSTILE = {
  user: '<img src=x onerror=window.__pwned=1>',
  session: '<script>window.__pwned=4</script>',
  url: 'javascript:window.__pwned=2',
  name: '<svg onload=window.__pwned=5></svg>',
};
const HOUR = 3_600_000;

describe('the console: events', () => {
  let h: ConsoleHarness;
  let key: string;

  const ingest = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${h.platform.url.ingest}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${INGEST_ADMIN_TOKEN}`,
        'content-type': 'application/json',
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const event = (fields: Record<string, unknown>) => ({
    event_id: randomUUID(),
    project_id: 'shop',
    'session.id': 'sess-a',
    'event.type': 'ui.click',
    'event.timestamp': new Date(Date.now() - HOUR).toISOString(),
    ...fields,
  });
  const send = async (events: unknown[]) => {
    const res = await fetch(`${h.platform.url.ingest}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': key },
      body: JSON.stringify({ events }),
    });
    assert.equal(res.status, 202, await res.text());
  };

  before(async () => {
    h = await startConsole('webconevents', { services: ['ingest'], env: { INGEST_ADMIN_TOKEN } });
    assert.equal(
      (await ingest('/api/v1/projects', { method: 'POST', body: { name: 'Web shop', id: 'shop' } })).status,
      201,
    );
    const made = await ingest('/api/v1/projects/shop/keys', { method: 'POST', body: { name: 'web' } });
    key = ((await made.json()) as { key: string }).key;
    await send([
      event({
        event_id: 'hostile-1',
        'user.id': HOSTILE.user,
        'session.id': HOSTILE.session,
        'page.url': HOSTILE.url,
        'event.name': HOSTILE.name,
        metadata: { html: HOSTILE.name },
      }),
      event({
        'event.type': 'page.view',
        'user.id': 'ann',
        'event.timestamp': new Date(Date.now() - 3 * HOUR).toISOString(),
      }),
      event({
        'event.type': 'page.view',
        'user.id': 'ann',
        'event.timestamp': new Date(Date.now() - 26 * HOUR).toISOString(),
      }),
      event({ 'event.type': 'error', 'user.id': 'bob', 'page.url': 'https://shop.example/cart' }),
    ]);
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).first().waitFor();

  test("explorer: counts as charts and tables, a person's timeline, one event's payload as text", async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Explorer');
    await page.getByRole('heading', { level: 1, name: 'Explorer' }).waitFor();
    await statusSays(page, 'Page 1: 4 events.');
    await page.getByText('4 events from').waitFor();
    await page.locator('.chart[data-drawn="true"]').nth(1).waitFor();
    // Counts by type are not failures: their bars are not painted in the palette's red (#c5221f), which reads as errors.
    const reds = await page
      .locator('.chart[data-drawn="true"] canvas')
      .nth(1)
      .evaluate((c: HTMLCanvasElement) => {
        const d = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? [];
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
          if (Math.abs(d[i] - 0xc5) < 16 && Math.abs(d[i + 1] - 0x22) < 16 && Math.abs(d[i + 2] - 0x1f) < 16) n++;
        return n;
      });
    assert.equal(reds, 0, 'no red bar among the counts by type');
    await page.getByText('Counts as tables').click();
    const byType = page.getByRole('table', { name: 'Events by type' });
    assert.match((await byType.textContent()) ?? '', /page\.view2.*error1|page\.view2.*ui\.click1/);
    const list = page.getByRole('table', { name: 'Events, newest first' });
    assert.match((await list.textContent()) ?? '', /<img src=x onerror=window\.__pwned=1>/);
    await assertAccessible(page, 'explorer');
    await h.screenshot(page, 'events-01-explorer');
    // The list's name is said once on screen, by its heading; its caption is for screen readers (it repeated it).
    assert.ok(((await list.locator('caption').boundingBox())?.width ?? 0) <= 1, 'the caption is not shown twice');

    // Ann's timeline, from her id in the list.
    await page.getByRole('button', { name: 'Timeline of user ann' }).first().click();
    await page.getByRole('heading', { level: 2, name: 'Timeline of user ann' }).waitFor();
    await statusSays(page, 'Page 1: 2 events.');
    // By type, then a bad custom range, said in the page.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('group', { name: 'Types' }).getByText('Any type').click();
    await page.getByRole('checkbox', { name: 'error', exact: true }).check();
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, 'Page 1: 1 event.');
    await page.getByText('1 event of type error from').waitFor();
    await page.getByLabel('Time range').selectOption('custom');
    await page.getByLabel('From').fill('2999-01-02T00:00');
    await page.getByLabel('Until').fill('2999-01-01T00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('alert').filter({ hasText: '“From” must be earlier than “Until”.' }).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await statusSays(page, 'Page 1: 4 events.');
    assert.equal(await page.getByRole('checkbox', { name: 'error', exact: true }).isChecked(), false);
    await h.checkNarrow(page, 'explorer', 'events-02-explorer');
    await page.setViewportSize({ width: 320, height: 800 });
    assert.deepEqual(await filterFieldEdges(page, 'form.filters-bar'), [304], "the explorer's filters are one column");
    await page.setViewportSize({ width: 1280, height: 900 });

    // The hostile event in full: its payload is text, its javascript: address no link.
    await page.getByRole('link', { name: 'hostile-1' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event hostile-1' }).waitFor();
    const payload = (await page.locator('pre.payload').textContent()) ?? '';
    assert.match(payload, /"user\.id": "<img src=x onerror=window\.__pwned=1>"/);
    assert.match(payload, /"event\.name": "<svg onload=window\.__pwned=5><\/svg>"/);
    assert.equal(await page.locator('main svg').count(), 0);
    await assertAccessible(page, 'one event');
    await h.checkNarrow(page, 'one event', 'events-03-event');
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('live: accepted and rejected events appear with reasons, summarised for screen readers, pause holds them', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/live?project=shop`);
    await page.getByRole('heading', { level: 1, name: 'Live events' }).waitFor();
    await page.getByText('Connected: new events appear as they arrive.').waitFor();
    await send([
      event({ event_id: 'live-ok', 'user.id': HOSTILE.user, 'page.url': HOSTILE.url, 'event.name': HOSTILE.name }),
      { ...event({ event_id: 'live-bad', 'user.id': 'carol' }), 'event.type': '<script>window.__pwned=6</script>' },
    ]);
    const items = page.locator('.live-item');
    await items.nth(1).waitFor();
    const text = (await page.locator('.live-list').textContent()) ?? '';
    assert.match(text, /Rejected.*<script>window\.__pwned=6<\/script>.*event_type/);
    assert.match(text, /Accepted.*ui\.click.*<img src=x onerror=window\.__pwned=1>/);
    // One summary for both, in the live region.
    await page.locator('[aria-live="polite"]').filter({ hasText: '2 new events, 1 rejected.' }).waitFor();
    await page.getByText('Payload').first().click();
    assert.match((await page.locator('.live-item pre.payload').first().textContent()) ?? '', /__pwned=5/);
    await assertAccessible(page, 'live view');
    await h.screenshot(page, 'events-04-live');

    // Paused, new events are held and counted; resumed, they are shown.
    await page.getByRole('button', { name: 'Pause' }).click();
    await send([event({ event_id: 'while-paused' })]);
    await page.getByText('Paused: 1 new event held.').waitFor();
    assert.equal(await items.count(), 2);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.live-item').filter({ hasText: 'while-paused' }).waitFor();
    // A request refused whole (a wrong key) is shown too, as not tied to a project.
    const refused = await fetch(`${h.platform.url.ingest}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': 'not-a-key' },
      body: '{"events":[]}',
    });
    assert.equal(refused.status, 401);
    await page.locator('.live-item').filter({ hasText: 'not tied to a project' }).waitFor();
    await h.checkNarrow(page, 'live view', 'events-05-live');
    // At 320 px Pause and Clear stay side by side (Clear went to a line of its own under Pause).
    await page.setViewportSize({ width: 320, height: 800 });
    const [pause, clear] = await Promise.all(
      ['Pause', 'Clear'].map((name) => page.getByRole('button', { name, exact: true }).boundingBox()),
    );
    assert.ok(pause && clear && Math.abs(pause.y - clear.y) < 2, 'Pause and Clear are on one line at 320 px');
    await page.setViewportSize({ width: 1280, height: 900 });
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('live, keyboard only: filters applied and pause pressed without a mouse', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/live?project=shop`);
    await page.getByText('Connected: new events appear as they arrive.').waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'live-project');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'live-type');
    await page.keyboard.press('Tab');
    await page.keyboard.type('dave');
    await page.keyboard.press('Enter');
    await page.getByText('Connected: new events appear as they arrive.').waitFor();
    await send([event({ event_id: 'not-dave', 'user.id': 'erin' }), event({ event_id: 'dave-1', 'user.id': 'dave' })]);
    await page.locator('.live-item').filter({ hasText: 'dave-1' }).waitFor();
    assert.equal(await page.locator('.live-item').count(), 1, 'the other user is filtered out on the server');
    for (let i = 0; i < 10 && (await focused(page)).label !== 'Pause'; i++) await page.keyboard.press('Tab');
    assert.equal((await focused(page)).label, 'Pause');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Resume' }).getAttribute('aria-pressed'), 'true');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test("explorer, keyboard only: a user's timeline searched and an event opened without a mouse", async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/explorer?project=shop`);
    // However many the tests before sent.
    await statusSays(page, /^Page 1: \d+ events\.$/);
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'explore-project');
    for (let i = 0; i < 6 && (await focused(page)).id !== 'explore-user'; i++) await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'explore-user');
    await page.keyboard.type('bob');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Timeline of user bob' }).waitFor();
    await statusSays(page, 'Page 1: 1 event.');
    // Onwards to the event's link in the table (past the timeline buttons of its row).
    for (let i = 0; i < 40; i++) {
      const inTable = await page.evaluate(
        'document.activeElement?.closest("table") !== null && document.activeElement?.tagName === "A"',
      );
      if (inTable) break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: /^Event / }).waitFor();
    assert.match((await page.locator('pre.payload').textContent()) ?? '', /"user\.id": "bob"/);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
  test('explorer, keyboard only: several types, then all types but them, kept in the address and cleared', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/explorer?project=shop`);
    await statusSays(page, /^Page 1: \d+ events\.$/);
    const checkboxLabel = () => page.evaluate('document.activeElement?.closest("label")?.textContent?.trim() ?? ""');
    const tabTo = async (found: () => Promise<boolean>, what: string, back = false) => {
      for (let i = 0; i < 30 && !(await found()); i++) await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      assert.ok(await found(), `${what} is reached by Tab`);
    };
    const typesShown = async () =>
      new Set(
        await page
          .getByRole('table', { name: 'Events, newest first' })
          .locator('tbody td:nth-child(2) code')
          .allTextContents(),
      );
    const summary = page.locator('#explore-types');

    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(async () => (await focused(page)).id === 'explore-types', 'the types disclosure');
    assert.equal((await focused(page)).label, 'Any type');
    await page.keyboard.press('Enter');
    await page.getByRole('radio', { name: 'Only these types' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await checkboxLabel(), 'Only these types');
    await tabTo(async () => (await checkboxLabel()) === 'page.view', 'page.view');
    await page.keyboard.press('Space');
    await tabTo(async () => (await checkboxLabel()) === 'error', 'error');
    await page.keyboard.press('Space');
    assert.equal(await summary.textContent(), '2 types: page.view, error');
    await tabTo(async () => (await focused(page)).label === 'Search', 'Search');
    await page.keyboard.press('Enter');
    await statusSays(page, 'Page 1: 3 events.');
    await page.getByText('3 events of 2 types (page.view, error) from').waitFor();
    assert.deepEqual(await typesShown(), new Set(['page.view', 'error']));
    assert.deepEqual(new URL(page.url()).searchParams.getAll('type'), ['page.view', 'error']);

    // The filter open, at 1280 px in light and dark, then at 320 px (axe in each).
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `explorer, two types chosen, ${scheme}`);
      await h.screenshot(page, `events-06-types-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'explorer, two types chosen', 'events-06-types');

    // All types but these two: back to the radio buttons, the other one chosen with an arrow key.
    await tabTo(async () => (await checkboxLabel()) === 'Only these types', 'the radio buttons', true);
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.getByRole('radio', { name: 'All types but these' }).isChecked(), true);
    assert.equal(await summary.textContent(), 'All but page.view, error');
    await tabTo(async () => (await focused(page)).label === 'Search', 'Search');
    await page.keyboard.press('Enter');
    await page.getByText(/ events? of all types but page\.view, error from/).waitFor();
    await statusSays(page, /^Page 1: \d+ events?\./);
    const others = await typesShown();
    assert.ok(others.has('ui.click'), [...others].join());
    assert.ok(!others.has('page.view') && !others.has('error'), [...others].join());
    assert.deepEqual(new URL(page.url()).searchParams.getAll('exclude_type'), ['page.view', 'error']);
    assert.deepEqual(new URL(page.url()).searchParams.getAll('type'), []);

    // A reload shows the same: the choice came back from the address.
    await page.reload();
    await page.getByText(/ events? of all types but page\.view, error from/).waitFor();
    assert.equal(await summary.textContent(), 'All but page.view, error');
    assert.deepEqual(await typesShown(), others);
    await summary.click();
    assert.equal(await page.getByRole('radio', { name: 'All types but these' }).isChecked(), true);
    assert.equal(await page.getByRole('checkbox', { name: 'error', exact: true }).isChecked(), true);

    // Clear, by keyboard too: every type again, and out of the address.
    await tabTo(async () => (await focused(page)).label === 'Clear', 'Clear');
    await page.keyboard.press('Enter');
    await page.locator('#explore-types', { hasText: 'Any type' }).waitFor();
    await statusSays(page, /^Page 1: \d+ events\.$/);
    assert.ok((await typesShown()).has('page.view'));
    assert.equal(new URL(page.url()).search, '?project=shop');
    assert.equal(await page.getByRole('checkbox', { name: 'error', exact: true }).isChecked(), false);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('explorer, keyboard only: every filter kept in the address, so a reload and a shared link show the same', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/explorer?project=shop`);
    await statusSays(page, /^Page 1: \d+ events\.$/);
    const tabTo = async (found: () => Promise<boolean>, what: string) => {
      for (let i = 0; i < 30 && !(await found()); i++) await page.keyboard.press('Tab');
      assert.ok(await found(), `${what} is reached by Tab`);
    };
    const checkboxLabel = () => page.evaluate('document.activeElement?.closest("label")?.textContent?.trim() ?? ""');
    const rows = (p: Page) => p.getByRole('table', { name: 'Timeline of user ann' }).locator('tbody').textContent();
    /** The form and the results the filters below give: ann's page views of the last 24 hours, one of her two. */
    const showsTheSame = async (p: Page, shown: string | null) => {
      await p.getByRole('heading', { level: 2, name: 'Timeline of user ann' }).waitFor();
      await statusSays(p, 'Page 1: 1 event.');
      await p.getByText('1 event of type page.view from').waitFor();
      assert.equal(await p.locator('#explore-project').inputValue(), 'shop');
      assert.equal(await p.locator('#explore-range').inputValue(), '24h');
      assert.equal(await p.locator('#explore-types').textContent(), '1 type: page.view');
      assert.equal(await p.locator('#explore-user').inputValue(), 'ann');
      assert.equal(await p.locator('#explore-session').inputValue(), 'sess-a');
      assert.equal(await rows(p), shown);
    };

    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(async () => (await focused(page)).id === 'explore-range', 'the time range');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.locator('#explore-range').inputValue(), '24h');
    await tabTo(async () => (await focused(page)).id === 'explore-types', 'the types disclosure');
    await page.keyboard.press('Enter');
    await tabTo(async () => (await checkboxLabel()) === 'page.view', 'page.view');
    await page.keyboard.press('Space');
    await tabTo(async () => (await focused(page)).id === 'explore-user', 'the user id');
    await page.keyboard.type('ann');
    await page.keyboard.press('Tab');
    await page.keyboard.type('sess-a');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Timeline of user ann' }).waitFor();
    await statusSays(page, 'Page 1: 1 event.');
    const shown = await rows(page);
    assert.match(shown ?? '', /page\.view/);
    const address = new URL(page.url());
    assert.deepEqual(
      [...address.searchParams],
      [
        ['project', 'shop'],
        ['range', '24h'],
        ['type', 'page.view'],
        ['user', 'ann'],
        ['session', 'sess-a'],
      ],
    );

    await page.reload();
    await showsTheSame(page, shown);
    // The link opened in another tab of the same signed-in browser.
    const shared = await page.context().newPage();
    await shared.goto(address.href);
    await showsTheSame(shared, shown);
    await h.screenshot(shared, 'events-07-from-address');
    await shared.close();

    // Values the form could not have made fall back to the defaults, with no error; an unknown project to the picker's first.
    for (const bad of [
      `project=nope&range=forever&user=${'a'.repeat(300)}&type=no.such`,
      'project=shop&range=custom&from=2999-01-02T00:00Z&to=2999-01-01T00:00Z&session=',
    ]) {
      await page.goto(`${h.platform.url.dashboard}/events/explorer?${bad}`);
      await statusSays(page, /^Page 1: \d+ events\.$/);
      await page.getByRole('heading', { level: 2, name: 'Events, newest first' }).waitFor();
      assert.equal(await page.locator('#explore-project').inputValue(), 'shop');
      assert.equal(await page.locator('#explore-range').inputValue(), '7d');
      assert.equal(await page.locator('#explore-types').textContent(), 'Any type');
      assert.equal(await page.locator('#explore-user').inputValue(), '');
      assert.equal(await page.getByRole('alert').count(), 0, bad);
      await assertAccessible(page, `explorer from a bad address (${bad.slice(0, 40)})`);
    }
    await h.screenshot(page, 'events-08-bad-address');

    // A custom range comes back as the From and Until it was, and a Search keeps it as it came, in UTC.
    const custom = 'project=shop&range=custom&from=2020-01-01T00%3A00Z&to=2020-01-02T00%3A00Z';
    await page.goto(`${h.platform.url.dashboard}/events/explorer?${custom}`);
    await page.getByText('No event in this range.').waitFor();
    assert.equal(await page.locator('#explore-range').inputValue(), 'custom');
    const local = (iso: string) => page.evaluate((i) => new Date(i).getTime(), iso);
    const fieldAt = async (id: string) => local(await page.locator(id).inputValue());
    assert.equal(await fieldAt('#explore-since'), Date.parse('2020-01-01T00:00Z'));
    assert.equal(await fieldAt('#explore-until'), Date.parse('2020-01-02T00:00Z'));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No event in this range.').waitFor();
    assert.equal(new URL(page.url()).search, `?${custom}`);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('internal and test users: listed on the project screen by keyboard, hidden in the explorer by a box kept in the address and in the live view', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/projects/shop`);
    const panel = page.getByRole('region', { name: 'Internal and test users' });
    await panel.getByText('No user is marked internal or test.').waitFor();
    // By keyboard: edit, type an exact id, add a field, a bad prefix refused beside its own field, then fixed.
    await page.getByRole('button', { name: 'Edit internal and test users' }).focus();
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'internal-user-0');
    await page.keyboard.type('ann');
    await page.getByRole('button', { name: 'Add a user id or prefix' }).focus();
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'internal-user-1', 'the focus is on the field added');
    await page.keyboard.type('te*st');
    await page.keyboard.press('Enter');
    const refused = page.locator('#internal-user-1-error');
    await refused.waitFor();
    assert.equal(await refused.textContent(), '* may only end an entry, as a prefix (test-*)');
    assert.equal(await page.locator('#internal-user-1').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(
      ((await (await ingest('/api/v1/projects/shop/internal-users')).json()) as { users: string[] }).users,
      [],
    );
    await assertAccessible(page, 'internal users refused');
    await page.locator('#internal-user-1').fill('test-*');
    await page.locator('#internal-user-1').press('Enter');
    await statusSays(page, '2 entries marked internal or test.');
    assert.equal((await focused(page)).label, 'Edit internal and test users');
    assert.deepEqual(await panel.getByRole('listitem').allTextContents(), [
      'ann',
      'test-* (every id starting with test-)',
    ]);
    assert.deepEqual(
      ((await (await ingest('/api/v1/projects/shop/internal-users')).json()) as { users: string[] }).users,
      ['ann', 'test-*'],
    );
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `internal users listed, ${scheme}`);
      await h.screenshot(page, `events-09-internal-users-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Edit internal and test users' }).click();
    await h.checkNarrow(page, 'internal users edited', 'events-09-internal-users-edit');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // The explorer: the box, ticked by keyboard, hides ann's two events (and test-* ones, none here) from counts and list.
    // The earlier tests of this file sent events too: what to expect comes from the read API.
    const since = encodeURIComponent(new Date(Date.now() - 7 * 24 * HOUR).toISOString());
    const all = (
      (await (await ingest(`/api/v1/projects/shop/events?limit=200&from=${since}`)).json()) as {
        items: { user_id: string | null }[];
      }
    ).items;
    const kept = all.filter((e) => e.user_id !== 'ann' && !e.user_id?.startsWith('test-')).length;
    const plural = (n: number) => `Page 1: ${n} event${n === 1 ? '' : 's'}.`;
    assert.ok(kept < all.length && kept > 0, `${kept} of ${all.length}`);
    await page.goto(`${h.platform.url.dashboard}/events/explorer?project=shop`);
    await statusSays(page, plural(all.length));
    const box = page.getByRole('checkbox', { name: 'Hide internal and test users' });
    await box.focus();
    await page.keyboard.press('Space');
    assert.equal(await box.isChecked(), true);
    await page.keyboard.press('Enter');
    await statusSays(page, plural(kept));
    await page.getByText(`${kept} events from users other than internal and test ones from`).waitFor();
    const users = await page
      .getByRole('table', { name: 'Events, newest first' })
      .locator('tbody td:nth-child(3)')
      .allTextContents();
    assert.ok(!users.includes('ann') && users.includes('bob'), users.join());
    assert.equal(new URL(page.url()).searchParams.get('internal'), 'exclude');
    await page.reload();
    await statusSays(page, plural(kept));
    assert.equal(await box.isChecked(), true, 'the box came back from the address');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `explorer hiding internal users, ${scheme}`);
      await h.screenshot(page, `events-10-hide-internal-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'explorer hiding internal users', 'events-10-hide-internal');
    // Clear unticks it and takes it out of the address.
    await page.getByRole('button', { name: 'Clear' }).click();
    await statusSays(page, plural(all.length));
    assert.equal(await box.isChecked(), false);
    assert.equal(new URL(page.url()).search, '?project=shop');

    // The live view has the same box, applied by the service to the same list: ann and test-* are left out.
    await page.goto(`${h.platform.url.dashboard}/events/live?project=shop`);
    await page.getByText('Connected: new events appear as they arrive.').waitFor();
    const hide = page.getByRole('checkbox', { name: 'Hide internal and test users' });
    await hide.focus();
    await page.keyboard.press('Space');
    assert.equal(await hide.isChecked(), true);
    const hiding = page.waitForResponse((r) => /\/live\?.*internal=exclude/.test(r.url()));
    await page.keyboard.press('Enter');
    await hiding;
    await page.getByText('Connected: new events appear as they arrive.').waitFor();
    const sent = [
      event({ event_id: 'live-ann', 'user.id': 'ann' }),
      event({ event_id: 'live-tester', 'user.id': 'test-1' }),
      { ...event({ event_id: 'live-tester-bad', 'user.id': 'test-2' }), 'event.type': 'nonsense' },
      event({ event_id: 'live-bob', 'user.id': 'bob' }),
      event({ event_id: 'live-nobody' }),
    ];
    await send(sent);
    const items = page.locator('.live-item');
    await items.filter({ hasText: 'live-nobody' }).waitFor();
    assert.deepEqual(
      await items.locator('.live-facts dd:last-of-type').allTextContents(),
      ['live-nobody', 'live-bob'],
      "the internal and test users' events, accepted or rejected, are not shown",
    );
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `live view hiding internal users, ${scheme}`);
      await h.screenshot(page, `events-12-live-hide-internal-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'live view hiding internal users', 'events-12-live-hide-internal');
    // Unticked, they are shown again.
    await hide.uncheck();
    const showing = page.waitForResponse((r) => /\/live\?/.test(r.url()) && !r.url().includes('internal='));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await showing;
    await page.getByText('Connected: new events appear as they arrive.').waitFor();
    await send([event({ event_id: 'live-ann-2', 'user.id': 'ann' })]);
    await items.filter({ hasText: 'live-ann-2' }).waitFor();
    assert.equal(
      (await ingest('/api/v1/projects/shop/internal-users', { method: 'PUT', body: { users: [] } })).status,
      200,
    );
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('explorer: the page of results is kept in the address, so a reload, Back and a shared link return to it', async () => {
    // A project of its own with 120 events, a minute apart: pages of 50, 50 and 20, p-001 the newest.
    assert.equal(
      (await ingest('/api/v1/projects', { method: 'POST', body: { name: 'Paged', id: 'paged' } })).status,
      201,
    );
    const made = await ingest('/api/v1/projects/paged/keys', { method: 'POST', body: { name: 'web' } });
    const pagedKey = ((await made.json()) as { key: string }).key;
    const id = (i: number) => `p-${String(i).padStart(3, '0')}`;
    for (const from of [1, 61]) {
      const res = await fetch(`${h.platform.url.ingest}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-api-key': pagedKey },
        body: JSON.stringify({
          events: Array.from({ length: 60 }, (_, k) =>
            event({
              project_id: 'paged',
              event_id: id(from + k),
              'user.id': (from + k) % 2 ? 'odd' : 'even',
              'event.timestamp': new Date(Date.now() - (from + k) * 60_000).toISOString(),
            }),
          ),
        }),
      });
      assert.equal(res.status, 202, await res.text());
    }
    const explorer = `${h.platform.url.dashboard}/events/explorer`;
    // Named by the heading above it: "Events, newest first", or a timeline's.
    const list = (p: Page) => p.getByRole('region', { name: 'Events' }).getByRole('table');
    /** The page said, its first event and the page in the address (none for the first). */
    const at = async (p: Page, status: string, first: string, page: string | null) => {
      await statusSays(p, status);
      assert.equal(await list(p).locator('tbody tr').first().locator('td').last().textContent(), first);
      assert.equal(new URL(p.url()).searchParams.get('page'), page);
    };
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${explorer}?project=paged`);
    await at(page, 'Page 1: 50 events, more on the next page.', 'p-001', null);
    await page.getByRole('button', { name: 'Next page' }).click();
    await at(page, 'Page 2: 50 events, more on the next page.', 'p-051', '2');
    await page.getByRole('button', { name: 'Next page' }).click();
    await at(page, 'Page 3: 20 events.', 'p-101', '3');
    assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);
    // A reload comes back to page 3, and Previous still goes back from it.
    await page.reload();
    await at(page, 'Page 3: 20 events.', 'p-101', '3');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await at(page, 'Page 2: 50 events, more on the next page.', 'p-051', '2');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `explorer on page 2, ${scheme}`);
      await h.screenshot(page, `events-11-page-2-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'explorer on page 2', 'events-11-page-2');
    // An event opened from page 2, then Back: page 2 again, and Forward and Back once more.
    await list(page).getByRole('link', { name: 'p-060' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event p-060' }).waitFor();
    await page.goBack();
    await at(page, 'Page 2: 50 events, more on the next page.', 'p-051', '2');
    await page.goForward();
    await page.getByRole('heading', { level: 1, name: 'Event p-060' }).waitFor();
    await page.goBack();
    await at(page, 'Page 2: 50 events, more on the next page.', 'p-051', '2');
    // The link shared, in another tab.
    const shared = await page.context().newPage();
    await shared.goto(`${explorer}?project=paged&page=3`);
    await at(shared, 'Page 3: 20 events.', 'p-101', '3');
    await shared.close();

    // A filter applied starts at page 1 again (Search, a timeline, Clear), and so does another project.
    await page.getByLabel('User id').fill('odd');
    await page.getByRole('button', { name: 'Search' }).click();
    await at(page, 'Page 1: 50 events, more on the next page.', 'p-001', null);
    await page.getByRole('button', { name: 'Next page' }).click();
    await at(page, 'Page 2: 10 events.', 'p-101', '2');
    await page.getByRole('button', { name: 'Clear' }).click();
    await at(page, 'Page 1: 50 events, more on the next page.', 'p-001', null);
    await page.getByRole('button', { name: 'Next page' }).click();
    await at(page, 'Page 2: 50 events, more on the next page.', 'p-051', '2');
    await list(page).getByRole('button', { name: 'Timeline of user even' }).first().click();
    await page.getByRole('heading', { level: 2, name: 'Timeline of user even' }).waitFor();
    await at(page, 'Page 1: 50 events, more on the next page.', 'p-002', null);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: 'Next page' }).click();
    await at(page, 'Page 2: 50 events, more on the next page.', 'p-051', '2');
    await page.getByLabel('Project').selectOption('shop');
    await statusSays(page, /^Page 1: \d+ events\.$/);
    assert.equal(new URL(page.url()).searchParams.get('page'), null);

    // A page the list does not have opens its last; one the pager could not have made, the first.
    await page.goto(`${explorer}?project=paged&page=9`);
    await at(page, 'Page 3: 20 events.', 'p-101', '3');
    for (const bad of ['0', '-2', 'two', '1e2', '']) {
      await page.goto(`${explorer}?project=paged&page=${bad}`);
      // Read as the first page, as a bad filter is read as its default (the address is left as it was typed).
      await at(page, 'Page 1: 50 events, more on the next page.', 'p-001', bad);
      assert.equal(await page.getByRole('alert').count(), 0, bad);
    }
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('tracking plan: edited as JSON on the project screen by keyboard, refusals said, violations listed', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/projects/shop`);
    const panel = page.getByRole('region', { name: 'Tracking plan' });
    await panel.getByText('Off: nothing is checked. No event is planned.').waitFor();
    await panel.getByText('No event broke the plan.').waitFor();
    await page.getByRole('button', { name: 'Edit tracking plan' }).focus();
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'tracking-plan-json');
    const area = page.locator('#tracking-plan-json');
    // Not JSON: said here, nothing sent.
    await area.fill('{"mode": ');
    await page.getByRole('button', { name: 'Save tracking plan' }).click();
    await panel.getByRole('alert').filter({ hasText: 'The plan is not valid JSON' }).waitFor();
    assert.equal(await area.getAttribute('aria-invalid'), 'true');
    // JSON the service refuses: its reason said.
    await area.fill(JSON.stringify({ mode: 'enforce', events: [{ name: ' ' }] }));
    await page.getByRole('button', { name: 'Save tracking plan' }).click();
    await panel.getByRole('alert').filter({ hasText: 'events[0].name: must not be blank' }).waitFor();
    await assertAccessible(page, 'tracking plan refused');
    await area.fill(
      JSON.stringify({
        mode: 'report',
        allow_unplanned_events: false,
        events: [{ name: 'signed-up', properties: [{ name: 'metadata.plan', type: 'string', required: true }] }],
      }),
    );
    await area.focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await statusSays(page, 'Tracking plan saved. Report: every event is stored');
    assert.equal((await focused(page)).label, 'Edit tracking plan');
    await send([
      event({ 'event.type': 'custom', 'event.name': 'signed-up', metadata: {} }),
      event({ 'event.type': 'page.view' }),
    ]);
    await page.reload();
    const table = page.getByRole('table', { name: 'Events that broke the tracking plan, most first' });
    await table.waitFor();
    assert.deepEqual((await table.locator('tbody tr').allTextContents()).sort(), [
      'page.viewEvent not in the plan1',
      'signed-upRequired property missing1',
    ]);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `tracking plan, ${scheme}`);
      await h.screenshot(page, `events-12-tracking-plan-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Edit tracking plan' }).click();
    await h.checkNarrow(page, 'tracking plan edited', 'events-12-tracking-plan-edit');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await ingest('/api/v1/projects/shop/tracking-plan', { method: 'PUT', body: { mode: 'off' } });
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
