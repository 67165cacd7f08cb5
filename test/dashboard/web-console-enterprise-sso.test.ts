import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { focused } from '../support/console-browser.ts';

/**
 * Identity → Organizations → one organization → Enterprise SSO in the console (Chromium): the owner sets the
 * organization's OpenID connector and its domains, sees identity's refusals (an internal issuer, a public mail domain),
 * and the client secret is write-only (sent, never shown back); then removes it. Keyboard only, axe in light and dark,
 * at 320 px.
 */
describe('the console: an organization enterprise SSO', () => {
  let h: ConsoleHarness;
  let orgId: string;
  // The IdP's address: 127.0.0.1 is let through the outbound guard here; nothing needs to answer there.
  const issuer = 'http://127.0.0.1:9/idp';

  before(async () => {
    h = await startConsole('webconsso', { env: { IDENTITY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
    const made = await h.identityApi('/organizations', {
      method: 'POST',
      body: { name: 'Acme', slug: 'acme', org_type: 'enterprise' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    orgId = made.body.id;
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();

  test('set the connector by keyboard, refusals shown, the secret never shown back, removed', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/identity/organizations/${orgId}`);
    await page.getByRole('heading', { level: 2, name: 'Enterprise SSO' }).waitFor();
    const form = page.getByRole('form', { name: 'Enterprise SSO connector' });
    await form.waitFor();
    await page.getByText('None set. Leave empty for a public client (PKCE only).').waitFor();
    await assertAccessible(page, 'enterprise SSO, none set');

    // Keyboard only, from the section's heading (below the members and invitations): Tab through each field.
    await page.focus('#sso-title');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'sso-issuer');
    await page.keyboard.type('http://10.0.0.5/');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'sso-client');
    await page.keyboard.type('acme-client');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'sso-secret');
    await page.keyboard.type('the-client-secret-123');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'sso-domains');
    await page.keyboard.type('acme.example');
    await page.keyboard.press('Enter');
    await page.keyboard.type('gmail.com');
    await tabTo(page, /^Save enterprise SSO$/);
    await page.keyboard.press('Enter');
    await page
      .getByRole('alert')
      .filter({ hasText: /^issuer: refused: 10\.0\.0\.5 is a private address/ })
      .waitFor();
    await page.getByLabel('Issuer URL').fill(issuer);
    await page.getByRole('button', { name: 'Save enterprise SSO' }).click();
    await page.getByRole('alert').filter({ hasText: 'gmail.com is a public mail service' }).waitFor();
    assert.equal((await h.identityApi(`/organizations/${orgId}/enterprise-sso`)).status, 404, 'nothing saved');

    await page.getByLabel('Email domains').fill('acme.example\ncorp.acme.example');
    await page.getByRole('button', { name: 'Save enterprise SSO' }).click();
    await statusSays(page, `Saved: people at acme.example, corp.acme.example now sign in through ${issuer}.`);
    const stored = await h.identityApi(`/organizations/${orgId}/enterprise-sso`);
    assert.deepEqual(
      [stored.body.issuer, stored.body.client_id, stored.body.has_client_secret, stored.body.domains],
      [issuer, 'acme-client', true, ['acme.example', 'corp.acme.example']],
    );
    // Write-only: the field is empty again and the page holds the secret nowhere.
    assert.equal(await page.getByLabel('Client secret').inputValue(), '');
    assert.doesNotMatch(await page.content(), /the-client-secret-123/);
    await page.getByText('A secret is set and is never shown. Leave this empty to keep it.').waitFor();
    await assertAccessible(page, 'enterprise SSO set');
    await h.screenshot(page, 'orgs-sso-01-set');
    await h.checkNarrow(page, 'enterprise SSO', 'orgs-sso-02-narrow');

    // Saving again with the secret field empty keeps the secret.
    await page.getByLabel('Client ID').fill('acme-client-2');
    await page.getByRole('button', { name: 'Save enterprise SSO' }).click();
    await statusSays(page, 'Saved: people at acme.example');
    const again = await h.identityApi(`/organizations/${orgId}/enterprise-sso`);
    assert.deepEqual([again.body.client_id, again.body.has_client_secret], ['acme-client-2', true]);

    // Remove: confirmed in a dialog whose safe choice has the focus.
    await page.getByRole('button', { name: 'Remove enterprise SSO' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove enterprise SSO?' });
    await dialog.waitFor();
    assert.equal((await focused(page)).label, 'Cancel');
    await assertAccessible(page, 'remove enterprise SSO dialog');
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await statusSays(page, 'Enterprise SSO is removed');
    assert.equal((await focused(page)).label, 'Enterprise SSO');
    assert.equal((await h.identityApi(`/organizations/${orgId}/enterprise-sso`)).status, 404);
    assert.deepEqual(h.problems, [], 'no script error, CSP violation or native dialog');
    await page.context().close();
  });
});
