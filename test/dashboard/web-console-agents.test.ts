import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { identityRuntime } from '../../src/identity/app.ts';
import { requestApproval } from '../../src/identity/delegation/store.ts';
import { assertAccessible } from '../support/axe.ts';
import { HOSTILE_NAME, OWNER, startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Identity → Agents in the console (Chromium, identity and the dashboard linked): who acts for whom, a pending request
 * approved and another declined on the person's behalf, an approval withdrawn (the agent's live token for the person
 * revoked), each confirmed in a dialog and each what identity then answers; hostile names as text; keyboard only.
 */
describe('the console: identity agents and their delegations', () => {
  let h: ConsoleHarness;
  let pat: string;
  let sam: string;
  let helper: string;

  before(async () => {
    h = await startConsole('webconagents');
    const person = async (email: string, name: string) => {
      const made = await h.identityApi('/principals', {
        method: 'POST',
        body: { type: 'human', email, display_name: name },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body.id as string;
    };
    pat = await person('pat@acme.example', 'Pat Person');
    sam = await person('sam@acme.example', HOSTILE_NAME);
    const agent = async (name: string, extra: Record<string, unknown> = {}) => {
      const made = await h.identityApi('/principals', {
        method: 'POST',
        body: { type: 'agent', name, model_id: 'acme-llm-4', version: '2026-10', ...extra },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body.id as string;
    };
    helper = await agent('mail-helper', { display_name: 'Mail helper' });
    await agent('night-batch', {
      delegating_principal_id: sam,
      requires_confirmation: false,
      display_name: '<script>window.__pwned=3</script>',
    });
    const db = identityRuntime(h.platform.app.identity!).db;
    // The helper's refused exchanges left a request with Pat and one with Sam.
    await requestApproval(db, pat, helper, ['mail:read', 'mail:send']);
    await requestApproval(db, sam, helper, ['mail:read']);
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();
  const delegation = async (person: string) =>
    (await h.identityApi(`/delegations?person_id=${person}&q=mail-helper`)).body.items[0];

  test('approve and decline on a person’s behalf, withdraw an approval: its token is revoked', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Agents');
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await statusSays(page, '3 delegations.');
    const table = page.getByRole('table', { name: 'Who acts for whom' });
    const text = (await table.textContent()) ?? '';
    assert.match(
      text,
      /<script>window\.__pwned=3<\/script>.*acme-llm-4 2026-10.*No request yet.*acts without approval/,
    );
    assert.ok((await table.getByRole('rowheader').allTextContents()).some((n) => n.startsWith(HOSTILE_NAME)));
    await h.assertNothingRan(page);
    await assertAccessible(page, 'agents');
    await h.screenshot(page, 'agents-01-list');
    // At 1280 px the table fits: its buttons wrap in their cell rather than push Withdraw past the screen's edge.
    const region = page.getByRole('region', { name: 'Delegations' });
    assert.ok(
      await region.evaluate((e) => e.scrollWidth <= e.clientWidth),
      'the delegations table does not scroll sideways at 1280 px',
    );

    await page.getByLabel('Status').selectOption('pending');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, '2 delegations.');

    // Approve Pat's request: the dialog says what the agent may then do.
    await page.getByRole('button', { name: 'Approve Mail helper for Pat Person' }).click();
    const approveDialog = page.getByRole('dialog', { name: 'Approve Mail helper for Pat Person?' });
    assert.match(
      (await approveDialog.textContent()) ?? '',
      /act for Pat Person with: mail:(read|send), mail:(read|send)/,
    );
    await assertAccessible(page, 'approve dialog');
    await h.screenshot(page, 'agents-02-approve');
    await approveDialog.getByRole('button', { name: 'Approve' }).click();
    await statusSays(page, 'Mail helper may act for Pat Person.');
    const approved = await delegation(pat);
    assert.equal(approved.approval.status, 'approved');
    assert.deepEqual(approved.approval.scopes.sort(), ['mail:read', 'mail:send']);
    const logged = (await h.identityApi('/admin-log?action=principal.agent.approve')).body.items[0];
    assert.deepEqual([logged.actor.email, logged.target.id, logged.after.agent_id], [OWNER.email, pat, helper]);

    // Decline Sam's.
    await page.getByRole('button', { name: `Decline Mail helper for ${HOSTILE_NAME}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Decline' }).click();
    await statusSays(page, `Mail helper's request for ${HOSTILE_NAME} is declined.`);
    assert.equal((await delegation(sam)).approval.status, 'denied');

    // The helper now holds a live token for Pat (as an exchange writes it); withdrawing the approval revokes it.
    await identityRuntime(h.platform.app.identity!).db.query(
      `INSERT INTO oauth_tokens (kind, access_token_signature, principal_id, client_id, payload, delegation_chain, access_expires_at)
       VALUES ('access_token', $1, $2, 'agent-runtime', '{}', $3, now() + interval '1 hour')`,
      [randomBytes(16).toString('hex'), pat, JSON.stringify([pat, helper])],
    );
    await page.getByLabel('Status').selectOption('approved');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, '1 delegation.');
    await table.getByRole('cell', { name: '1', exact: true }).waitFor();
    await page.getByRole('button', { name: "Withdraw Mail helper's approval for Pat Person" }).click();
    const withdraw = page.getByRole('dialog', { name: "Withdraw Mail helper's approval for Pat Person?" });
    assert.match((await withdraw.textContent()) ?? '', /the 1 live token it holds for them is revoked at once/);
    await withdraw.getByRole('button', { name: 'Withdraw approval' }).click();
    await statusSays(page, 'Mail helper no longer acts for Pat Person; its tokens for them are revoked.');
    const withdrawn = await delegation(pat);
    assert.deepEqual([withdrawn.approval.status, withdrawn.live_tokens], ['revoked', 0]);

    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, '3 delegations.');
    await h.checkNarrow(page, 'agents', 'agents-03');
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: a request answered from the keyboard, the dialog starting on Cancel', async () => {
    await requestApproval(identityRuntime(h.platform.app.identity!).db, pat, helper, ['calendar:read']);
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/identity/agents`);
    await statusSays(page, '3 delegations.');
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Approve Mail helper for Pat Person$/);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    assert.equal((await focused(page)).label, 'Cancel');
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).label, 'Approve');
    await page.keyboard.press('Enter');
    await statusSays(page, 'Mail helper may act for Pat Person.');
    const f = await focused(page);
    assert.notEqual(f.tag, 'body', 'the focus is kept in the page');
    assert.deepEqual((await delegation(pat)).approval.scopes, ['calendar:read']);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
