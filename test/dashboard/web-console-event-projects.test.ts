import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { HOSTILE_NAME, HOSTILE_URL, startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { FAST_FORWARDING } from '../ingest/forwarding-helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/vendors/webhook.ts';
import { focused, gapBetween, openFromNav } from '../support/console-browser.ts';

/**
 * Events → Projects in the console (Chromium; identity, the dashboard and ingest linked as `platform start` links them,
 * ingest delivering with short retries): the owner creates a project, makes an API key (shown once, and it works at
 * ingest), pastes the SDK snippet, revokes the key, renames the project; adds a webhook destination pointing at a local
 * receiver that checks the documented signature, tests it, pauses and resumes it and reads its figures; a refused
 * delivery ends in the dead letters, is inspected as text and replayed once the receiver takes it again; a user's
 * events are erased and the user suppressed, then the suppression lifted. Names, URLs, events and vendors' errors are
 * hostile: nothing runs.
 */
const INGEST_TOKEN = 'console-events-ingest-admin-token';
const SECRET = 'whsec_console_0123456789abcdef';
const ATTEMPTS = Number(FAST_FORWARDING.INGEST_FORWARDING_MAX_ATTEMPTS);

describe('the console: events projects and destinations', () => {
  let h: ConsoleHarness;
  let r: WebhookReceiver;

  before(async () => {
    h = await startConsole('webconevents', {
      services: ['ingest'],
      // An erasure completes once nothing accepted before it can still arrive (key cache + commit timeout): seconds.
      env: {
        ...FAST_FORWARDING,
        INGEST_ADMIN_TOKEN: INGEST_TOKEN,
        INGEST_KEY_CACHE_SECONDS: '1',
        INGEST_COMMIT_TIMEOUT_SECONDS: '5',
      },
    });
    r = await startWebhookReceiver(SECRET);
  });
  after(async () => {
    await r?.close();
    await h?.close();
  });

  const ingest = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${h.platform.url.ingest}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${INGEST_TOKEN}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    return { status: res.status, body: (res.status === 204 ? undefined : await res.json()) as any };
  };
  const sendEvents = async (key: string, projectId: string, overrides: Record<string, unknown>[] = [{}]) => {
    const events = overrides.map((o) => ({
      event_id: randomUUID(),
      project_id: projectId,
      'session.id': 's-1',
      'event.type': 'ui.click',
      'event.timestamp': new Date().toISOString(),
      ...o,
    }));
    const res = await fetch(`${h.platform.url.ingest}/v1/events`, {
      method: 'POST',
      headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    return { status: res.status, ids: events.map((e) => e.event_id) };
  };
  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const figure = (page: Page, name: string, value: number) =>
    page
      .locator('.figures > div')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
      .locator('dd', { hasText: new RegExp(`^${value}$`) })
      .waitFor();
  const openProjects = async (page: Page) => {
    await openFromNav(page, 'Projects');
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
  };

  test('a project: created, a key shown once that works at ingest, the SDK snippet, revoked, renamed', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openProjects(page);
    await statusSays(page, 'No project yet.');
    await assertAccessible(page, 'projects, empty');
    // The explorer and the live view without a project: a line of its own above the filters (it stood beside them,
    // where a field's label goes) with the way to make one; nothing to connect to, so nothing to pause or clear.
    for (const screen of ['Explorer', 'Live events']) {
      await openFromNav(page, screen);
      await page.getByRole('heading', { level: 1, name: screen }).waitFor();
      const note = page.getByText('There is no project yet:');
      await note.getByRole('link', { name: 'create one under Projects' }).waitFor();
      const gap = await gapBetween(note, page.locator('label', { hasText: /^User id$/ }));
      assert.ok(gap >= 0, `${screen}: the note is above the fields (${gap} px)`);
      await assertAccessible(page, `${screen}, no project`);
    }
    assert.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0, 'no live connection to pause');
    await page.getByRole('link', { name: 'create one under Projects' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();

    await page.getByRole('button', { name: 'New project' }).click();
    let dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Name').fill('Web shop');
    await dialog.getByLabel('Project id (optional)').fill('web-shop');
    await assertAccessible(page, 'new project dialog');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Web shop' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/events/projects/web-shop');
    assert.equal((await ingest('/projects/web-shop')).body.name, 'Web shop');
    await page.getByText('No key yet: nothing can send events to this project.').waitFor();

    await page.getByLabel('Name of the new key (optional)').fill('site');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const once = page.getByRole('region', { name: 'The new API key, shown this once' });
    await once.waitFor();
    const key = (await once.locator('code').textContent())!;
    assert.match(key, /^\S{20,}$/);
    assert.equal((await focused(page)).label, 'The new API key, shown this once', 'the focus is on the new key');
    const keys = page.getByRole('table', { name: 'API keys of Web shop, oldest first' });
    // The list refetches after the key is shown: its row may come a moment after the panel.
    await keys.getByRole('row').nth(1).waitFor();
    const row = (await keys.getByRole('row').allTextContents())[1]!;
    assert.match(row, /site/);
    assert.ok(row.includes(`${key.slice(0, 6)}`), 'the list shows the key by its first characters');
    assert.equal((await sendEvents(key, 'web-shop')).status, 202, 'the key works at ingest');

    const snippet = (await page.getByRole('region', { name: 'The SDK snippet of Web shop' }).textContent())!;
    assert.ok(snippet.includes(`import { init, track } from "${h.platform.url.ingest}/sdk/v1.js";`), snippet);
    assert.ok(
      snippet.includes(`init({ endpoint: "${h.platform.url.ingest}", apiKey: "${key}", projectId: "web-shop" });`),
      snippet,
    );
    assert.equal((await fetch(`${h.platform.url.ingest}/sdk/v1.js`)).status, 200, 'the snippet loads a real module');
    await assertAccessible(page, 'project with a new key');
    await h.screenshot(page, 'events-01-project');
    // The destinations' hint stands apart from Add destination under it (it touched it).
    const hint = await page.getByText('Every event the project accepts is forwarded').boundingBox();
    const add = await page.getByRole('button', { name: 'Add destination' }).boundingBox();
    assert.ok(hint && add && add.y - (hint.y + hint.height) >= 6, 'a gap between the hint and the button');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Web shop' }).waitFor();
    assert.equal(await page.getByText(key).count(), 0, 'the key is gone once the page is left');
    assert.ok(
      ((await page.getByRole('region', { name: 'The SDK snippet of Web shop' }).textContent()) ?? '').includes(
        'YOUR_API_KEY',
      ),
    );

    await page.getByRole('button', { name: /^Revoke the key / }).click();
    dialog = page.getByRole('dialog', { name: /^Revoke the key / });
    await assertAccessible(page, 'revoke dialog');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await statusSays(page, /is revoked: events sent with it are refused from now on\./);
    // The status is said at once; the list shows the key revoked once it is read again.
    await keys.getByRole('row').nth(1).filter({ hasText: 'revoked' }).waitFor();
    assert.equal((await sendEvents(key, 'web-shop')).status, 401, 'the revoked key is refused at ingest');

    await page.getByRole('button', { name: 'Rename project' }).click();
    await page.getByLabel('New name').fill('   ');
    await page.getByRole('button', { name: 'Save the name' }).click();
    const nameError = page.locator('#project-rename-error');
    await nameError.waitFor();
    assert.equal(await nameError.textContent(), 'must not be blank');
    assert.equal(await page.getByLabel('New name').getAttribute('aria-describedby'), 'project-rename-error');
    await assertAccessible(page, 'rename refused');
    await page.getByLabel('New name').fill('Web shop (EU)');
    await page.getByRole('button', { name: 'Save the name' }).click();
    await page.getByRole('heading', { level: 1, name: 'Web shop (EU)' }).waitFor();
    assert.equal((await ingest('/projects/web-shop')).body.name, 'Web shop (EU)');
    // Allowed origins, one field each: a bad one is refused next to its own field (a blank one left out in between).
    await page.getByRole('button', { name: 'Edit allowed origins' }).click();
    assert.equal((await focused(page)).id, 'origin-0');
    await page.getByLabel('Origin 1', { exact: true }).fill('https://app.example.com');
    await page.getByRole('button', { name: 'Add an origin' }).click();
    await page.getByRole('button', { name: 'Add an origin' }).click();
    assert.equal((await focused(page)).id, 'origin-2', 'the focus is on the field added');
    await page.getByLabel('Origin 3', { exact: true }).fill(HOSTILE_URL);
    await page.getByRole('button', { name: 'Save allowed origins' }).click();
    const originError = page.locator('#origin-2-error');
    await originError.waitFor();
    assert.equal(await originError.textContent(), 'must start with https:// or http://');
    assert.equal(await page.getByLabel('Origin 3', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Origin 1', { exact: true }).getAttribute('aria-invalid'), null);
    assert.deepEqual((await ingest('/projects/web-shop/origins')).body.origins, [], 'nothing was stored');
    await assertAccessible(page, 'origins refused');
    await h.screenshot(page, 'events-02a-origins-refused');
    await page.getByRole('button', { name: 'Remove origin 2' }).click();
    assert.equal((await focused(page)).id, 'origin-1', 'the focus goes to the next field');
    await page.getByLabel('Origin 2', { exact: true }).fill('http://localhost:3000/');
    await page.getByRole('button', { name: 'Save allowed origins' }).click();
    await statusSays(page, 'The project allows 2 origins.');
    assert.equal((await focused(page)).label, 'Edit allowed origins');
    const allowed = page.getByRole('region', { name: 'Allowed origins' }).getByRole('listitem');
    assert.deepEqual(await allowed.allTextContents(), ['https://app.example.com', 'http://localhost:3000']);
    assert.deepEqual((await ingest('/projects/web-shop/origins')).body.origins, [
      'https://app.example.com',
      'http://localhost:3000',
    ]);
    const preflight = await fetch(`${h.platform.url.ingest}/v1/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204, 'the events endpoint lets the origin send');
    await h.checkNarrow(page, 'project', 'events-02-project');

    // A taken id is said next to the id field; a hostile name is only text, in the list and as the heading.
    await openProjects(page);
    await page.getByRole('button', { name: 'New project' }).click();
    dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Name').fill(HOSTILE_NAME);
    await dialog.getByLabel('Project id (optional)').fill('web-shop');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    const idError = dialog.locator('#project-id-error');
    await idError.waitFor();
    assert.equal(await idError.textContent(), 'project web-shop already exists');
    assert.equal(await dialog.getByLabel('Project id (optional)').getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'new project refused');
    await dialog.getByLabel('Project id (optional)').fill('');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    await openProjects(page);
    await statusSays(page, '2 projects.');
    await page.getByRole('link', { name: HOSTILE_NAME }).waitFor();
    await h.assertNothingRan(page);
    await h.checkNarrow(page, 'projects', 'events-03-projects');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('a destination: refused URL, added, tested, paused and resumed, figures, dead letters replayed', async () => {
    const made = await ingest('/projects', { method: 'POST', body: { name: 'Orders', id: 'orders' } });
    assert.equal(made.status, 201);
    const key = (await ingest('/projects/orders/keys', { method: 'POST', body: {} })).body.key as string;
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/projects/orders`);
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    await page.getByText('No destination yet: events are stored, not forwarded.').waitFor();

    await page.getByRole('button', { name: 'Add destination' }).click();
    const dialog = page.getByRole('dialog', { name: 'New destination of Orders' });
    await dialog.getByLabel('Name').fill(HOSTILE_NAME);
    assert.equal(await dialog.getByLabel('Vendor').inputValue(), 'webhook');
    await dialog.getByLabel('Receiving URL').fill(HOSTILE_URL);
    await dialog.getByLabel('Signing secret (optional)').fill(SECRET);
    await dialog.getByRole('button', { name: 'Add destination' }).click();
    const urlError = dialog.locator('#dest-url-error');
    await urlError.waitFor();
    assert.equal(await urlError.textContent(), 'must be an absolute http or https URL');
    assert.equal(await dialog.getByLabel('Receiving URL').getAttribute('aria-invalid'), 'true');
    assert.equal((await ingest('/projects/orders/destinations')).body.items.length, 0, 'the API refused it');
    await assertAccessible(page, 'new destination refused');
    await h.screenshot(page, 'events-04-destination-refused');
    await dialog.getByLabel('Receiving URL').fill(`${r.url}/hooks/orders?token=sealed-part`);
    await dialog.getByRole('button', { name: 'Add destination' }).click();
    await statusSays(page, `The destination ${HOSTILE_NAME} is added.`);
    assert.equal(await page.getByText(SECRET).count(), 0, 'a secret given is never shown back');
    const list = page.getByRole('table', { name: 'Destinations of Orders, oldest first' });
    const row = (await list.getByRole('row').allTextContents())[1]!;
    assert.ok(row.includes(`${new URL(r.url).origin}/…`), row);
    assert.doesNotMatch(row, /sealed-part/);
    await h.assertNothingRan(page);
    await h.checkNarrow(page, 'project with a destination', 'events-04b-project-destinations');

    await list.getByRole('link', { name: HOSTILE_NAME }).click();
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    await page.getByText('secret (never shown)').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const result = page.getByRole('region', { name: /^Test send: / });
    await result.getByRole('heading', { name: 'Test send: Delivered' }).waitFor();
    const testId = (await result.locator('code').nth(1).textContent())!;
    assert.equal(
      r.events.get(testId)?.['event.type'],
      'platform.test',
      'the receiver checked the signature and took it',
    );
    await assertAccessible(page, 'destination tested');
    await h.screenshot(page, 'events-05-destination-tested');

    const sent = await sendEvents(key, 'orders', [{}, {}]);
    assert.equal(sent.status, 202);
    await figure(page, 'Delivered', 2);
    for (const id of sent.ids) assert.equal(r.arrivals.get(id), 1);

    await page.getByRole('button', { name: 'Pause' }).click();
    await statusSays(page, /is paused: new events are not queued for it/);
    assert.equal((await ingest('/projects/orders/destinations')).body.items[0].enabled, false);
    assert.equal((await sendEvents(key, 'orders')).status, 202);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await result.getByRole('heading', { name: 'Test send: Delivered' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await statusSays(page, /is sending again/);
    await figure(page, 'Delivered', 2);
    await figure(page, 'Waiting', 0);

    // The receiver refuses what comes next with a hostile error, as many times as an event is tried: it dies.
    r.fail({ status: 422, body: { error: '<img src=x onerror=window.__pwned=4>' } }, ATTEMPTS);
    const hostile = await sendEvents(key, 'orders', [{ 'page.path': '<script>window.__pwned=5</script>' }]);
    await figure(page, 'Dead', 1);
    await page.reload();
    const letters = page.getByRole('table', { name: /^Dead letters of / });
    await letters.waitFor();
    await statusSays(page, '1 dead letter.');
    const letterRow = (await letters.getByRole('row').allTextContents())[1]!;
    assert.ok(letterRow.includes(hostile.ids[0]!), letterRow);
    assert.ok(letterRow.includes('HTTP 422: {"error":"<img src=x onerror=window.__pwned=4>"}'), letterRow);
    await page.getByRole('button', { name: `Inspect the dead letter of event ${hostile.ids[0]}` }).click();
    const inspect = page.getByRole('dialog', { name: `Dead letter of event ${hostile.ids[0]}` });
    const payload = inspect.getByRole('region', { name: `The event ${hostile.ids[0]} as received` });
    await payload.waitFor();
    assert.equal(JSON.parse((await payload.textContent())!)['page.path'], '<script>window.__pwned=5</script>');
    await assertAccessible(page, 'dead letter inspected');
    await h.screenshot(page, 'events-06-dead-letter');
    await h.checkNarrow(page, 'dead letter inspected', 'events-06b-dead-letter');
    await h.assertNothingRan(page);
    // The receiver takes events again: the replayed one arrives.
    await inspect.getByRole('button', { name: 'Replay this event' }).click();
    await statusSays(page, '1 event is queued again.');
    await figure(page, 'Delivered', 3);
    assert.equal(r.arrivals.get(hostile.ids[0]!), 1);
    await letters.waitFor({ state: 'detached' });

    // Two more die; "Replay all" queues both. Refused together, they are first sent one by one without counting that
    // attempt (one more refusal); one left over, if they went alone, only delays a replay by one retry.
    r.fail({ status: 422, body: { error: 'no' } }, 2 * ATTEMPTS + 1);
    const two = await sendEvents(key, 'orders', [{}, {}]);
    await figure(page, 'Dead', 2);
    await page.reload();
    await statusSays(page, '2 dead letters.');
    await page.getByRole('button', { name: 'Replay all dead letters' }).click();
    const all = page.getByRole('dialog', { name: /^Replay every dead letter of / });
    await assertAccessible(page, 'replay all dialog');
    await all.getByRole('button', { name: 'Replay all' }).click();
    await statusSays(page, '2 events are queued again.');
    await figure(page, 'Delivered', 5);
    for (const id of two.ids) assert.equal(r.arrivals.get(id), 1);

    // A failing test send says what the destination answered, as text.
    r.fail({ status: 500, body: { error: '<b>down</b>' } }, 1);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const failed = page.getByRole('region', { name: /^Test send: Not delivered/ });
    await failed.waitFor();
    await page.getByRole('alert').filter({ hasText: 'HTTP 500' }).waitFor();
    assert.match((await failed.textContent())!, /HTTP 500: \{"error":"<b>down<\/b>"\}/);
    await assertAccessible(page, 'test send failed');
    await h.checkNarrow(page, 'destination', 'events-07-destination');
    await h.assertNothingRan(page);

    await page.getByRole('button', { name: 'Delete destination' }).click();
    await page
      .getByRole('dialog', { name: `Delete ${HOSTILE_NAME}?` })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    await page.getByText('No destination yet: events are stored, not forwarded.').waitFor();
    assert.equal((await ingest('/projects/orders/destinations')).body.items.length, 0);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: a project and a key made without a mouse, the dialog giving the focus back', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/projects`);
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^New project$/);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New project' }).waitFor();
    assert.equal((await focused(page)).id, 'project-name');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'New project', 'the focus is back on the button');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Keyboard app');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keyboard app' }).waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 40 && (await focused(page)).id !== 'key-name'; i++) await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'key-name');
    await page.keyboard.type('kbd');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'The new API key, shown this once' }).waitFor();
    assert.equal((await focused(page)).label, 'The new API key, shown this once');
    await tabTo(page, /^Copy the new API key of Keyboard app$/, 5);
    await tabTo(page, /^Revoke the key /);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: /^Revoke the key / }).waitFor();
    assert.equal((await focused(page)).label, 'Cancel', 'the dialog opens on Cancel, not on what revokes');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.match((await focused(page)).label, /^Revoke the key /);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: a destination renamed, pointed elsewhere (an internal URL refused beside its field) and given a new secret, write-only', async () => {
    assert.equal((await ingest('/projects', { method: 'POST', body: { name: 'Edits', id: 'edits' } })).status, 201);
    const created = await ingest('/projects/edits/destinations', {
      method: 'POST',
      body: { name: 'Old hook', kind: 'webhook', base_url: `${r.url}/hooks/old`, credentials: { secret: SECRET } },
    });
    assert.equal(created.status, 201);
    const id = created.body.id as string;
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/destinations/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Old hook' }).waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Edit$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit Old hook' });
    await dialog.waitFor();
    assert.equal((await focused(page)).id, 'edit-dest-name');
    assert.equal(await dialog.getByLabel('New receiving URL').inputValue(), '', 'the sealed URL is never sent back');
    assert.equal(await dialog.getByLabel('Signing secret').inputValue(), '', 'nor the secret');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Renamed hook');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'edit-dest-url');
    await page.keyboard.type('http://169.254.169.254/latest/meta-data/');
    await page.keyboard.press('Enter');
    const urlError = dialog.locator('#edit-dest-url-error');
    await urlError.waitFor();
    assert.match(
      (await urlError.textContent())!,
      /^refused: 169\.254\.169\.254 is a link-local address, where a cloud metadata/,
    );
    assert.equal(await dialog.getByLabel('New receiving URL').getAttribute('aria-invalid'), 'true');
    assert.equal((await ingest(`/destinations/${id}`)).body.name, 'Old hook', 'nothing was changed');
    await assertAccessible(page, 'edit destination refused');
    await h.screenshot(page, 'events-07-destination-edit-refused');
    await h.checkNarrow(page, 'edit destination refused', 'events-07a-destination-edit-refused');

    const rotated = 'whsec_console_rotated_0123456789';
    await dialog.getByLabel('New receiving URL').fill(`${r.url}/hooks/new`);
    await dialog.getByLabel('Signing secret').focus();
    await page.keyboard.type(rotated);
    await page.keyboard.press('Enter');
    await statusSays(page, 'Renamed hook is saved: the next delivery uses it as it is now.');
    await page.getByRole('heading', { level: 1, name: 'Renamed hook' }).waitFor();
    assert.equal((await focused(page)).label, 'Edit', 'the focus is back on the button that opened the dialog');
    assert.equal(await page.getByText(rotated).count(), 0, 'a secret given is never shown back');
    assert.equal(await page.getByText('/hooks/new').count(), 0, 'nor the sealed part of the URL');

    // The receiver now holds the new secret: a test send reaches the new path, signed with it.
    const before = r.received.length;
    r.secret = rotated;
    try {
      await page.focus('.skip-link');
      await page.keyboard.press('Enter');
      await tabTo(page, /^Send a test event$/);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Test send: Delivered' }).waitFor();
      assert.equal(r.received.at(-1)!.url.pathname, '/hooks/new');
      assert.equal(r.received.length, before + 1);
    } finally {
      r.secret = SECRET;
    }
    await h.checkNarrow(page, 'destination edited', 'events-07b-destination-edited');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: a destination added, tested and paused without a mouse', async () => {
    assert.equal((await ingest('/projects', { method: 'POST', body: { name: 'Kbd', id: 'kbd' } })).status, 201);
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/projects/kbd`);
    await page.getByRole('heading', { level: 1, name: 'Kbd' }).waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Add destination$/);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New destination of Kbd' }).waitFor();
    assert.equal((await focused(page)).id, 'dest-name');
    await page.keyboard.type('Keyboard hook');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'dest-kind');
    await page.keyboard.press('Tab');
    await page.keyboard.type(r.url);
    await page.keyboard.press('Tab');
    await page.keyboard.type(SECRET);
    await page.keyboard.press('Enter');
    await statusSays(page, 'The destination Keyboard hook is added.');
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Keyboard hook$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keyboard hook' }).waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Send a test event$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Test send: Delivered' }).waitFor();
    await tabTo(page, /^Pause$/, 5);
    await page.keyboard.press('Enter');
    await statusSays(page, /is paused/);
    await tabTo(page, /^Delete destination$/, 5);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Delete Keyboard hook?' }).waitFor();
    assert.equal((await focused(page)).label, 'Cancel');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'Delete destination');
    assert.equal((await ingest('/projects/kbd/destinations')).body.items[0].enabled, false);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test("keyboard only: a user's events erased, asked first in a dialog saying what goes, followed until done; the suppression lifted", async () => {
    assert.equal((await ingest('/projects', { method: 'POST', body: { name: 'Privacy', id: 'privacy' } })).status, 201);
    const key = (await ingest('/projects/privacy/keys', { method: 'POST', body: { name: 'site' } })).body.key as string;
    const ann = { 'user.id': 'ann@example.com' };
    assert.equal((await sendEvents(key, 'privacy', [ann, ann, ann, { 'user.id': 'bob' }])).status, 202);
    const eventsOf = async (user: string) =>
      (await ingest(`/projects/privacy/events?user=${encodeURIComponent(user)}`)).body.items.length as number;
    assert.equal(await eventsOf('ann@example.com'), 3);

    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/events/projects/privacy`);
    await page.getByRole('heading', { level: 1, name: 'Privacy' }).waitFor();
    const panel = page.getByRole('region', { name: 'Erase a user’s events' });
    await panel.getByText('No erasure asked for in this project.').waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 80 && (await focused(page)).id !== 'erasure-user'; i++) await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'erasure-user');
    await page.keyboard.type('ann@example.com');
    await page.keyboard.press('Enter');
    let dialog = page.getByRole('dialog', { name: 'Erase every event of ann@example.com?' });
    await dialog.waitFor();
    assert.equal((await focused(page)).label, 'Cancel', 'the dialog opens on Cancel, not on what erases');
    const said = (await dialog.textContent())!;
    assert.match(
      said,
      /Every event of Privacy stored with the user id ann@example\.com \(exactly, capitals included\)/,
    );
    assert.match(said, /cannot be undone/);
    assert.match(said, /new events will be dropped/);
    await assertAccessible(page, 'erasure asked, light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'erasure asked, dark');
    await h.screenshot(page, 'events-08a-erasure-dialog-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.deepEqual((await ingest('/projects/privacy/erasures')).body.items, [], 'Escape erases nothing');
    assert.notEqual((await focused(page)).tag, 'body', 'the focus is not lost');

    await tabTo(page, /^Erase the user’s events$/, 5);
    await page.keyboard.press('Enter');
    dialog = page.getByRole('dialog', { name: 'Erase every event of ann@example.com?' });
    await dialog.waitFor();
    await tabTo(page, /^Erase the events$/, 5);
    await page.keyboard.press('Enter');
    await statusSays(
      page,
      'Erasing the events of ann@example.com, and dropping their new events from now on: the list below says when it is done.',
    );
    const erasures = panel.getByRole('table', { name: 'Erasures of Privacy, newest first' });
    const row = erasures.getByRole('row', { name: /ann@example\.com/ });
    await row.getByText('on: their new events are dropped').waitFor();
    await row.getByText('done: 3 events deleted').waitFor({ timeout: 60_000 });
    assert.equal(await eventsOf('ann@example.com'), 0);
    assert.equal(await eventsOf('bob'), 1);
    // Suppressed: accepted, not stored.
    assert.equal((await sendEvents(key, 'privacy', [ann])).status, 202);
    assert.equal(await eventsOf('ann@example.com'), 0);
    await assertAccessible(page, 'erasure done');
    await h.screenshot(page, 'events-08-erasures');
    await h.checkNarrow(page, 'erasures', 'events-08b-erasures');

    await tabTo(page, /^Lift suppression of ann@example\.com$/);
    await page.keyboard.press('Enter');
    dialog = page.getByRole('dialog', { name: 'Lift the suppression of ann@example.com?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent())!, /stored again from now on\. The events already erased stay erased/);
    await tabTo(page, /^Lift the suppression$/, 5);
    await page.keyboard.press('Enter');
    await statusSays(page, 'The new events of ann@example.com are stored again from now on.');
    // Erased and no longer suppressed: the service keeps only a digest of the id, and the row says so.
    const kept = erasures.getByRole('row', { name: /Not kept after erasing/ });
    await kept.getByText(/^lifted /).waitFor();
    assert.equal(await kept.getByRole('button').count(), 0, 'nothing more to lift');
    assert.equal(await erasures.getByText('ann@example.com').count(), 0);
    await assertAccessible(page, 'erasure id not kept');
    await h.screenshot(page, 'events-08d-erasure-id-not-kept');
    assert.equal((await sendEvents(key, 'privacy', [ann])).status, 202);
    assert.equal(await eventsOf('ann@example.com'), 1);

    // A hostile user id is text in the dialog and in the list.
    await page.getByLabel('User id').fill(HOSTILE_NAME);
    await page.getByLabel('Also drop this user’s new events (suppress)').uncheck();
    await page.getByRole('button', { name: 'Erase the user’s events' }).click();
    dialog = page.getByRole('dialog', { name: `Erase every event of ${HOSTILE_NAME}?` });
    assert.match((await dialog.textContent())!, /Their new events will still be stored\./);
    await dialog.getByRole('button', { name: 'Erase the events' }).click();
    await erasures
      .getByRole('row', { name: HOSTILE_NAME })
      .getByText('not asked: their new events are stored')
      .waitFor();
    await h.assertNothingRan(page);
    await h.checkNarrow(page, 'erasures with a hostile id', 'events-08c-erasures-hostile');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
