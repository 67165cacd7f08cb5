import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { managementApi, startServer, type Server } from './support.ts';
import { requestApproval } from '../../src/identity/delegation/store.ts';

/**
 * Who acts for whom (src/identity/delegation/overview-routes.ts): `GET /api/v1/delegations` lists every agent acting,
 * or asking to act, for a person; an admin approves or declines a pending request on the person's behalf, and
 * withdrawing the approval revokes the tokens the agent holds for them.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
let server: Server;
let pat: string;
let sam: string;
let helper: string;
let bound: string;
let unattended: string;
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);

const agent = async (name: string, extra: Record<string, unknown> = {}) => {
  const made = await api('/principals', {
    method: 'POST',
    body: { type: 'agent', name, model_id: 'acme-llm-4', version: '2026-10', ...extra },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body.id as string;
};

before(async () => {
  server = await startServer('iddelegations', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  pat = await server.createHuman('pat@example.com', 'pat has a long passphrase');
  sam = await server.createHuman('sam@example.com', 'sam has a long passphrase');
  helper = await agent('mail-helper');
  bound = await agent('calendar-bot', { delegating_principal_id: sam });
  unattended = await agent('night-batch', { delegating_principal_id: sam, requires_confirmation: false });
  // The helper's exchanges for Pat and Sam were refused until they approve: each left a pending request.
  await requestApproval(server.runtime.db, pat, helper, ['mail:read', 'mail:send']);
  await requestApproval(server.runtime.db, sam, helper, ['mail:read']);
});
after(async () => server?.close());

const delegations = async (query = '') => {
  const r = await api(`/delegations${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { items: any[]; next: string | null };
};
const pairOf = (d: any) => `${d.person.email} ← ${d.agent.identifier}: ${d.approval?.status ?? 'none'}`;

test('every pair is listed: pending requests, and bound agents that asked nothing yet', async () => {
  const all = await delegations();
  assert.deepEqual(
    all.items.map(pairOf).sort(),
    [
      'pat@example.com ← mail-helper: pending',
      'sam@example.com ← calendar-bot: none',
      'sam@example.com ← mail-helper: pending',
      'sam@example.com ← night-batch: none',
    ].sort(),
  );
  const unattendedRow = all.items.find((d) => d.agent.id === unattended);
  assert.equal(unattendedRow.agent.requires_confirmation, false);
  assert.equal(unattendedRow.agent.model_id, 'acme-llm-4');
  const patRow = all.items.find((d) => d.person.id === pat);
  assert.deepEqual(patRow.approval.pending_scopes.sort(), ['mail:read', 'mail:send']);
  assert.deepEqual(patRow.approval.scopes, []);
  assert.equal(patRow.live_tokens, 0);

  assert.deepEqual((await delegations('?status=pending')).items.map(pairOf).sort(), [
    'pat@example.com ← mail-helper: pending',
    'sam@example.com ← mail-helper: pending',
  ]);
  assert.deepEqual((await delegations(`?person_id=${sam}&q=CALENDAR`)).items.map(pairOf), [
    'sam@example.com ← calendar-bot: none',
  ]);
  assert.equal((await delegations('?q=pat@')).items.length, 1);

  const first = await delegations('?limit=3');
  assert.equal(first.items.length, 3);
  const rest = await delegations(`?limit=3&cursor=${first.next}`);
  assert.equal(rest.next, null);
  assert.deepEqual([...first.items, ...rest.items].map(pairOf), all.items.map(pairOf), 'the pages follow one order');
});

test('an admin approves on the person’s behalf; withdrawing it revokes the agent’s tokens for them', async () => {
  const approved = await api(`/principals/${pat}/agents/${helper}/approve`, { method: 'POST' });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  assert.equal(approved.body.status, 'approved');
  assert.deepEqual(approved.body.scopes.sort(), ['mail:read', 'mail:send']);
  const again = await api(`/principals/${pat}/agents/${helper}/approve`, { method: 'POST' });
  assert.equal(again.status, 404);
  assert.match(again.body.error.message, /no pending request/);
  const record = (await api('/admin-log?action=principal.agent')).body.items[0];
  assert.deepEqual(
    [record.action, record.target.id, record.after],
    ['principal.agent.approve', pat, { agent_id: helper }],
  );

  // A live token the helper holds for Pat (as an exchange writes it).
  await server.runtime.db.query(
    `INSERT INTO oauth_tokens (kind, access_token_signature, principal_id, client_id, payload, delegation_chain, access_expires_at)
     VALUES ('access_token', $1, $2, 'agent-runtime', '{}', $3, now() + interval '1 hour')`,
    [randomBytes(16).toString('hex'), pat, JSON.stringify([pat, helper])],
  );
  const held = (await delegations('?status=approved')).items;
  assert.deepEqual(
    held.map((d) => [pairOf(d), d.live_tokens]),
    [['pat@example.com ← mail-helper: approved', 1]],
  );

  assert.equal((await api(`/principals/${pat}/agents/${helper}/approval`, { method: 'DELETE' })).status, 204);
  const revoked = (await delegations(`?person_id=${pat}`)).items[0];
  assert.equal(revoked.approval.status, 'revoked');
  assert.equal(revoked.approval.revoked_reason, 'admin_revoked');
  assert.equal(revoked.live_tokens, 0);

  const denied = await api(`/principals/${sam}/agents/${helper}/deny`, { method: 'POST' });
  assert.equal(denied.status, 200);
  assert.equal(denied.body.status, 'denied');
});

test('bad inputs: unknown status, cursor or parameter 400; no pending request 404; nobody 401', async () => {
  for (const bad of ['?status=maybe', '?cursor=bm9wZQ', '?person_id=pat', '?limit=999', '?x=1']) {
    const r = await api(`/delegations${bad}`);
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  }
  const none = await api(`/principals/${sam}/agents/${bound}/approve`, { method: 'POST' });
  assert.equal(none.status, 404);
  const notUuid = await api(`/principals/${sam}/agents/calendar-bot/deny`, { method: 'POST' });
  assert.equal(notUuid.status, 400);
  assert.equal((await fetch(`${server.issuer}/api/v1/delegations`)).status, 401);
});
