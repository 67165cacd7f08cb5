import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { HOSTILE_NAME, HOSTILE_URL, startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Identity → Organizations in the console (Chromium, identity and the dashboard linked as `platform start` links them):
 * the owner lists organizations (hostile names and URLs as text), creates one in a dialog, adds a member by email,
 * changes their role and removes them, sends an invitation (its link shown once), resends and revokes it, and
 * deactivates the organization; every change is what identity then answers. Keyboard only: the dialog keeps the focus
 * and gives it back.
 */
describe('the console: identity organizations', () => {
  let h: ConsoleHarness;
  let hostileOrg: string;

  before(async () => {
    h = await startConsole('webconorgs');
    const made = await h.identityApi('/organizations', {
      method: 'POST',
      body: {
        name: HOSTILE_NAME,
        slug: 'hostile',
        website_url: HOSTILE_URL,
        description: '<script>window.__pwned=3</script>',
      },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    hostileOrg = made.body.id;
    const globex = await h.identityApi('/organizations', {
      method: 'POST',
      body: { name: 'Globex', slug: 'globex', website_url: 'https://globex.example/' },
    });
    assert.equal(globex.status, 201);
    const ada = await h.identityApi('/principals', {
      method: 'POST',
      body: { type: 'human', email: 'ada@acme.example', display_name: HOSTILE_NAME, email_verified: true },
    });
    assert.equal(ada.status, 201, JSON.stringify(ada.body));
    // A pending invitation whose address and message were built to run.
    const invited = await h.identityApi(`/organizations/${hostileOrg}/invites`, {
      method: 'POST',
      body: {
        email: '<img/src=x/onerror=window.__pwned=4>@evil.example',
        message: '<script>window.__pwned=5</script>',
      },
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();

  test('list, create, members and roles, invitations, deactivate: each change reaches identity', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Organizations');
    await page.getByRole('heading', { level: 1, name: 'Organizations' }).waitFor();
    await statusSays(page, '2 active organizations.');
    const list = page.getByRole('table', { name: /Organizations at identity/ });
    const names = await list.getByRole('rowheader').allTextContents();
    assert.ok(
      names.some((n) => n.startsWith(HOSTILE_NAME) && n.includes('<script>')),
      names.join(' | '),
    );
    const hostileRow = list.getByRole('row').filter({ hasText: 'hostile' });
    assert.equal(await hostileRow.getByRole('link').count(), 1, 'only the name links (to the organization)');
    assert.match((await hostileRow.textContent()) ?? '', /javascript:window\.__pwned=2/);
    const globexLink = list
      .getByRole('row')
      .filter({ hasText: 'Globex' })
      .getByRole('link', { name: 'https://globex.example/' });
    assert.equal(await globexLink.getAttribute('rel'), 'noopener noreferrer');
    await h.assertNothingRan(page);
    await assertAccessible(page, 'organizations');
    await h.screenshot(page, 'orgs-01-list');

    // Create: a dialog with the focus in it, the slug following the name.
    await page.getByRole('button', { name: 'New organization' }).click();
    const dialog = page.getByRole('dialog', { name: 'New organization' });
    await dialog.waitFor();
    assert.equal((await focused(page)).id, 'org-name');
    await dialog.getByLabel('Name').fill('Initech Labs');
    assert.equal(await dialog.getByLabel('Slug').inputValue(), 'initech-labs');
    await assertAccessible(page, 'new organization dialog');
    await h.screenshot(page, 'orgs-02-new-dialog');
    await dialog.getByLabel('Slug').fill('globex');
    await dialog.getByRole('button', { name: 'Create organization' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'an organization with slug "globex" already exists' }).waitFor();
    await dialog.getByLabel('Slug').fill('initech');
    await dialog.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { level: 1, name: 'Initech Labs' }).waitFor();
    const orgId = new URL(page.url()).pathname.split('/').pop()!;
    const stored = await h.identityApi(`/organizations/${orgId}`);
    assert.deepEqual([stored.body.name, stored.body.slug, stored.body.org_type], ['Initech Labs', 'initech', 'team']);
    await statusSays(page, 'No members yet.');

    // Add a member by email in another case: their (hostile) display name is text.
    await page.getByLabel('Email or identifier').fill('ADA@acme.example');
    await page.getByLabel('Role', { exact: true }).first().fill('admin');
    await page.getByRole('button', { name: 'Add member' }).click();
    await statusSays(page, `${HOSTILE_NAME} is a member, as admin.`);
    const members = page.getByRole('table', { name: 'Members of Initech Labs' });
    await members.getByRole('cell', { name: 'admin', exact: true }).waitFor();
    assert.deepEqual(await members.getByRole('rowheader').allTextContents(), [HOSTILE_NAME]);
    // Adding them again is refused in the page, with identity's reason.
    await page.getByLabel('Email or identifier').fill('ada@acme.example');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('alert').filter({ hasText: 'is a member already' }).waitFor();

    // Change the role in a dialog; the focus comes back to the button that opened it.
    const changeRole = page.getByRole('button', { name: `Change role of ${HOSTILE_NAME}` });
    await changeRole.click();
    const roleDialog = page.getByRole('dialog', { name: `Role of ${HOSTILE_NAME}` });
    await roleDialog.getByLabel('Role').fill('owner');
    await roleDialog.getByRole('button', { name: 'Save role' }).click();
    await statusSays(page, `${HOSTILE_NAME} is now owner.`);
    await members.getByRole('cell', { name: 'owner', exact: true }).waitFor();
    assert.equal((await focused(page)).label, `Change role of ${HOSTILE_NAME}`);
    const ada = (await h.identityApi(`/organizations/${orgId}/people`)).body.items[0];
    assert.deepEqual([ada.principal.email, ada.role, ada.active], ['ada@acme.example', 'owner', true]);

    // Invite: the link is shown once, with a Copy button; no mail server here, so the page says to pass it on.
    await page.getByLabel('Email', { exact: true }).fill('bob@acme.example');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await statusSays(page, 'bob@acme.example is invited as member.');
    const link = (await page.locator('.one-time code').textContent())!;
    assert.match(link, /\/invites\/accept\?token=inv_/);
    await page.getByText(/No mail was sent/).waitFor();
    await page.getByRole('button', { name: 'Copy: Invitation link for bob@acme.example' }).waitFor();
    const invites = page.getByRole('table', { name: /Invitations to Initech Labs/ });
    await invites.getByRole('cell', { name: 'Pending' }).waitFor();
    await assertAccessible(page, 'organization with a member and an invitation');
    await h.screenshot(page, 'orgs-03-organization');

    // Resend: a new link, and the one before stops working.
    await page.getByRole('button', { name: 'Resend the invitation of bob@acme.example' }).click();
    await statusSays(page, 'The invitation of bob@acme.example is sent again');
    await page.locator('.one-time code').filter({ hasNotText: link }).waitFor();
    const newLink = (await page.locator('.one-time code').textContent())!;
    assert.match(newLink, /\/invites\/accept\?token=inv_/);
    const declineOld = await fetch(`${h.platform.url.identity}/api/v1/invitations/decline`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link).searchParams.get('token') }),
    });
    assert.equal(declineOld.status, 404);

    // Revoke: Escape leaves the dialog without revoking and gives the focus back; the button then revokes.
    const revoke = page.getByRole('button', { name: 'Revoke the invitation of bob@acme.example' });
    await revoke.click();
    const revokeDialog = page.getByRole('dialog', { name: 'Revoke the invitation of bob@acme.example?' });
    await revokeDialog.waitFor();
    assert.equal((await focused(page)).label, 'Cancel', 'the safe choice has the focus');
    await assertAccessible(page, 'revoke dialog');
    await page.keyboard.press('Escape');
    await revokeDialog.waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'Revoke the invitation of bob@acme.example');
    await revoke.click();
    await revokeDialog.getByRole('button', { name: 'Revoke invitation' }).click();
    await statusSays(page, 'The invitation of bob@acme.example is revoked');
    await invites.getByRole('cell', { name: 'Revoked' }).waitFor();
    assert.equal((await focused(page)).label, 'Invitations', 'the focus goes to the section once its button is gone');
    const bob = (await h.identityApi(`/organizations/${orgId}/invites`)).body.items[0];
    assert.deepEqual([bob.email, bob.status, bob.resend_count], ['bob@acme.example', 'revoked', 1]);
    await page.getByLabel('Show').selectOption('pending');
    await statusSays(page, 'No pending invitation.');

    // Remove the member: confirmed, then gone from the list (identity keeps the membership, inactive).
    await page.getByRole('button', { name: `Remove ${HOSTILE_NAME}` }).click();
    await page
      .getByRole('dialog', { name: `Remove ${HOSTILE_NAME}?` })
      .getByRole('button', { name: 'Remove member' })
      .click();
    await statusSays(page, `${HOSTILE_NAME} is no longer a member.`);
    await members.waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'Members');
    assert.equal((await h.identityApi(`/organizations/${orgId}/people?active=true`)).body.items.length, 0);

    // Deactivate: the forms go, and identity refuses new members.
    await page.getByRole('button', { name: 'Deactivate organization' }).click();
    await page
      .getByRole('dialog', { name: 'Deactivate Initech Labs?' })
      .getByRole('button', { name: 'Deactivate' })
      .click();
    await statusSays(page, 'Initech Labs is deactivated.');
    assert.equal(await page.getByRole('button', { name: 'Add member' }).count(), 0);
    assert.equal((await h.identityApi(`/organizations/${orgId}`)).body.active, false);
    await h.checkNarrow(page, 'organization', 'orgs-04-organization');

    // The hostile organization's page: its name, description, website, invitation address and message are text.
    await page.goto(`${h.platform.url.dashboard}/identity/organizations/${hostileOrg}`);
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    await page.getByRole('table', { name: `Invitations to ${HOSTILE_NAME}, oldest first` }).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /<script>window\.__pwned=5<\/script>/);
    await h.assertNothingRan(page);
    await h.checkNarrow(page, 'hostile organization', 'orgs-05-hostile');
    assert.deepEqual(h.problems, [], 'no script error, CSP violation or native dialog');
    await page.context().close();
  });

  test('keyboard only: the new-organization dialog keeps the focus inside, Escape closes it and the focus returns', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/identity/organizations`);
    await page.getByRole('heading', { level: 1, name: 'Organizations' }).waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^New organization$/);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New organization' }).waitFor();
    assert.equal((await focused(page)).id, 'org-name');
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      // Past the dialog's last control the browser's own UI may take the focus (document.body): never the page.
      assert.ok(f.inDialog || f.tag === 'body', `Tab ${i + 1} left the dialog for ${f.tag} "${f.label}"`);
    }
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'New organization');
    // Opening an organization from the keyboard: its link is a real link.
    await tabTo(page, /^Globex$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Globex' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Members' }).waitFor();
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
