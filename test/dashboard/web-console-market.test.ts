import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { HOSTILE_NAME, OWNER, startConsole, type ConsoleHarness } from '../support/console-screens.ts';
import { openFromNav } from '../support/console-browser.ts';

/**
 * Identity → Marketplace in the console (Chromium, identity and the dashboard linked): the review queue (publish, send
 * back), archiving, the licenses bought and a license's seats (give, take back, change the count and validity), and an
 * organization's subscription started and changed by hand; each change is what identity then answers. Hostile titles,
 * descriptions and product types are text.
 */
describe('the console: identity marketplace', () => {
  let h: ConsoleHarness;
  let globex: string;
  let reports: string;
  let hostile: string;
  let uptime: string;

  before(async () => {
    h = await startConsole('webconmarket');
    const ok = async (path: string, body?: unknown, method = 'POST') => {
      const r = await h.identityApi(path, { method, ...(body === undefined ? {} : { body }) });
      assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const acme = (await ok('/organizations', { name: 'Acme Tools', slug: 'acme-tools' })).id;
    globex = (await ok('/organizations', { name: 'Globex', slug: 'globex' })).id;
    const ada = await ok('/principals', { type: 'human', email: 'ada@globex.example', display_name: 'Ada Admin' });
    await ok('/principals', { type: 'human', email: 'bob@globex.example', display_name: 'Bob Builder' });
    await ok(`/organizations/${globex}/people`, { identifier: 'ada@globex.example', role: 'admin' });
    await ok(`/organizations/${globex}/people`, { identifier: 'bob@globex.example' });
    const listing = async (body: Record<string, unknown>) =>
      (await ok('/listings', { creator_org_id: acme, owner_id: ada.id, ...body })).id as string;
    reports = await listing({
      title: 'Reports Pro',
      product_type: 'app',
      pricing_model: 'per_seat',
      price_cents: 1250,
      currency: 'USD',
    });
    hostile = await listing({
      title: HOSTILE_NAME,
      description: '<script>window.__pwned=3</script>',
      product_type: 'javascript:window.__pwned=2',
    });
    uptime = await listing({ title: 'Uptime', product_type: 'service' });
    for (const id of [reports, hostile, uptime]) await ok(`/listings/${id}/submit`);
    await ok(`/listings/${uptime}/publish`);
    await ok('/licenses', {
      listing_id: uptime,
      organization_id: globex,
      purchased_by: ada.id,
      license_type: 'seat_based',
      seats: 2,
    });
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();
  const listingStatus = async (id: string) => (await h.identityApi(`/listings/${id}`)).body.status;

  test('review listings, archive one, and manage a license’s seats', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Marketplace');
    await page.getByRole('heading', { level: 1, name: 'Marketplace' }).waitFor();
    await statusSays(page, '2 listings waiting for review.');
    const listings = page.getByRole('table', { name: 'Listings: waiting for review' });
    // The sellers' names arrive after the listings (one read per organization).
    await listings.getByRole('link', { name: 'Acme Tools' }).first().waitFor();
    const text = (await listings.textContent()) ?? '';
    // A product type by its name ("Application", not the code "app"); a seller's own type as typed.
    assert.match(text, /Reports Pro.*Acme Tools.*Application.*\$12\.50.*Per seat.*Waiting for review/);
    assert.match(text, /<script>window\.__pwned=3<\/script>.*javascript:window\.__pwned=2/);
    await statusSays(page, '1 license.');
    await h.assertNothingRan(page);
    await assertAccessible(page, 'marketplace');
    await h.screenshot(page, 'market-01');

    await page.getByRole('button', { name: 'Publish: Reports Pro' }).click();
    const publish = page.getByRole('dialog', { name: 'Publish “Reports Pro”?' });
    await publish.getByRole('button', { name: 'Publish' }).click();
    await statusSays(page, '“Reports Pro” is published.');
    assert.equal(await listingStatus(reports), 'published');
    await page.getByRole('button', { name: `Send back: ${HOSTILE_NAME}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Send back' }).click();
    await statusSays(page, `“${HOSTILE_NAME}” is sent back to its seller as a draft.`);
    assert.equal(await listingStatus(hostile), 'draft');

    await page.getByLabel('Show').selectOption('published');
    await statusSays(page, '2 listings published.');
    await page.getByRole('button', { name: 'Archive: Uptime' }).click();
    await page.getByRole('dialog', { name: 'Archive “Uptime”?' }).getByRole('button', { name: 'Archive' }).click();
    await statusSays(page, '“Uptime” is archived.');
    assert.equal(await listingStatus(uptime), 'archived');
    const logged = (await h.identityApi('/admin-log?action=listing')).body.items.slice(0, 3);
    assert.deepEqual(
      logged.map((e: any) => [e.action, e.actor.email]),
      [
        ['listing.archive', OWNER.email],
        ['listing.withdraw', OWNER.email],
        ['listing.publish', OWNER.email],
      ],
    );

    // The license Globex bought: its seats.
    await page.getByRole('table', { name: 'Licenses bought' }).getByRole('link', { name: 'Uptime' }).click();
    await page.getByRole('heading', { level: 1, name: 'License: Uptime' }).waitFor();
    await page.getByText('0 of 2 given').waitFor();
    await page.getByLabel('Member of Globex').selectOption({ label: 'Ada Admin (ada@globex.example)' });
    await page.getByRole('button', { name: 'Give a seat' }).click();
    await statusSays(page, 'Ada Admin has a seat.');
    await page.getByLabel('Member of Globex').selectOption({ label: 'Bob Builder (bob@globex.example)' });
    await page.getByRole('button', { name: 'Give a seat' }).click();
    await statusSays(page, 'Bob Builder has a seat.');
    await page.getByText('2 of 2 given').waitFor();
    assert.deepEqual(
      (await page.getByRole('table', { name: 'Who holds a seat' }).getByRole('rowheader').allTextContents()).sort(),
      ['Ada Admin', 'Bob Builder'],
    );
    await page
      .getByLabel('Member of Globex')
      .getByRole('option', { name: 'Every member has a seat' })
      .waitFor({ state: 'attached' });

    // Fewer seats than given is refused in the dialog; more is saved.
    await page.getByRole('button', { name: 'Change seats or validity' }).click();
    const change = page.getByRole('dialog', { name: 'Change the license' });
    await change.getByLabel('Seats').fill('3');
    await change.getByLabel('Valid until (empty: no end)').fill('2031-01-01T12:00');
    await assertAccessible(page, 'change license dialog');
    await change.getByRole('button', { name: 'Save' }).click();
    await statusSays(page, 'The license is changed.');
    await page.getByText('2 of 3 given').waitFor();
    const license = (await h.identityApi(`/licenses?organization_id=${globex}`)).body.items[0];
    assert.deepEqual([license.seats, license.used_seats, license.valid_until.slice(0, 4)], [3, 2, '2031']);

    await page.getByRole('button', { name: 'Take back the seat of Bob Builder' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Take back' }).click();
    await statusSays(page, "Bob Builder's seat is taken back.");
    await page.getByText('1 of 3 given').waitFor();
    await assertAccessible(page, 'license');
    await h.screenshot(page, 'market-02-license');
    await h.checkNarrow(page, 'license', 'market-03-license');
    await page.getByRole('link', { name: 'Marketplace' }).first().click();
    await statusSays(page, /^\d+ listings? waiting for review\.$|^No listing waiting for review\.$/);
    await h.checkNarrow(page, 'marketplace', 'market-04');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('an organization’s subscription: started and changed by hand; a move the webhooks would not make is refused', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/identity/organizations/${globex}`);
    await page.getByRole('heading', { level: 2, name: 'Subscription' }).waitFor();
    await page.getByText('No subscription.').waitFor();
    await page.getByRole('button', { name: 'Start a subscription' }).click();
    const start = page.getByRole('dialog', { name: 'Start a subscription' });
    await start.getByLabel('Plan').selectOption('pro');
    await start.getByLabel('Status').selectOption('trialing');
    await assertAccessible(page, 'subscription dialog');
    await start.getByRole('button', { name: 'Save' }).click();
    await statusSays(page, 'The subscription is trial, on Pro.');
    let sub = (await h.identityApi(`/organizations/${globex}/subscription`)).body;
    assert.deepEqual([sub.plan_tier, sub.status], ['pro', 'trialing']);

    await page.getByRole('button', { name: 'Change subscription' }).click();
    const change = page.getByRole('dialog', { name: 'Change the subscription' });
    await change.getByLabel('Status').selectOption('unpaid');
    await change.getByRole('button', { name: 'Save' }).click();
    await change.getByRole('alert').waitFor();
    await change.getByLabel('Status').selectOption('active');
    await change.getByLabel('Ends with the current period').check();
    await change.getByRole('button', { name: 'Save' }).click();
    await statusSays(page, 'The subscription is active, on Pro.');
    sub = (await h.identityApi(`/organizations/${globex}/subscription`)).body;
    assert.deepEqual([sub.status, sub.cancel_at_period_end], ['active', true]);
    await page.getByText('Active, ends with the period').waitFor();
    await assertAccessible(page, 'organization with a subscription');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
