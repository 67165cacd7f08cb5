import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { createHumanWithSetupLink } from '../../src/identity/password-links/store.ts';
import { issueSetupLink } from '../../src/identity/password-links/issue.ts';
import { startServer, managementApi, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { assertAccessible } from './a11y.ts';

/** `POST /api/v1/principals/:id/password-link`: a new choose-your-password link for someone who never chose one. */
let server: Server;
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);

before(async () => {
  server = await startServer('idpwissue', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN, IDENTITY_PASSWORD_LINK_TTL: '7200' });
});
after(async () => {
  await server?.close();
});

async function invited(email: string, continueTo?: string): Promise<{ id: string; token: string }> {
  const r = await createHumanWithSetupLink(server.runtime.db, { email, name: email, ttlSeconds: 3600, continueTo });
  assert.equal(r.status, 'created');
  const id = (
    await server.runtime.db.query<{ principal_id: string }>('SELECT principal_id FROM humans WHERE email = $1', [email])
  ).rows[0]!.principal_id;
  return { id, token: (r as { token: string }).token };
}
const pageOf = (token: string) => `${server.issuer}/account/choose-password?token=${token}`;
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
async function choose(link: string, password: string): Promise<number> {
  const b = new TestBrowser();
  const html = await (await b.request(link)).text();
  const r = await b.request(`${server.issuer}/account/choose-password`, {
    form: {
      token: field(html, 'token')!,
      csrf: field(html, 'csrf')!,
      new_password: password,
      confirm_password: password,
    },
  });
  return r.status;
}

test('an expired link: a new one opens the page, leads where the old one did, and the old one says it was replaced', async () => {
  const { id, token: old } = await invited('uma@example.com', 'http://dash.example.test/');
  await server.runtime.db.query(
    "UPDATE password_links SET expires_at = now() - interval '1 minute' WHERE principal_id = $1",
    [id],
  );
  assert.equal((await fetch(pageOf(old))).status, 410);

  const r = await fetch(`${server.issuer}/api/v1/principals/${id}/password-link`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(r.status, 201);
  assert.equal(r.headers.get('cache-control'), 'no-store');
  const body = (await r.json()) as { link: string; expires_at: string; principal_id: string; email: string };
  assert.equal(body.principal_id, id);
  assert.equal(body.email, 'uma@example.com');
  assert.match(body.link, new RegExp(`^${server.issuer}/account/choose-password\\?token=[A-Za-z0-9_-]{43}$`));
  const ttl = (Date.parse(body.expires_at) - Date.now()) / 1000;
  assert.ok(ttl > 7000 && ttl <= 7200, `IDENTITY_PASSWORD_LINK_TTL: ${ttl}`);
  const rows = (
    await server.runtime.db.query<{ token_hash: string; continue_to: string; replaced: boolean }>(
      'SELECT token_hash, continue_to, replaced_at IS NOT NULL AS replaced FROM password_links WHERE principal_id = $1 ORDER BY created_at',
      [id],
    )
  ).rows;
  assert.deepEqual(
    rows.map((x) => [x.replaced, x.continue_to]),
    [
      [true, 'http://dash.example.test/'],
      [false, 'http://dash.example.test/'],
    ],
  );
  assert.equal(
    rows[1]!.token_hash,
    createHash('sha256').update(tokenOf(body.link)).digest('hex'),
    'only the hash is kept',
  );

  const replaced = await fetch(pageOf(old));
  assert.equal(replaced.status, 410);
  assert.match(await replaced.text(), /<h1>Link replaced<\/h1>/);
  assert.equal((await fetch(body.link)).status, 200);
  const browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage();
    await page.goto(pageOf(old));
    assert.match((await page.locator('main').textContent())!, /A newer link was made for this account/);
    await assertAccessible(page, 'replaced link page');
  } finally {
    await browser.close();
  }
});

test('an unused link is replaced: only the newest sets the password, then a further link is refused (409, explained)', async () => {
  const { id, token: first } = await invited('vic@example.com');
  const second = await api(`/principals/${id}/password-link`, { method: 'POST' });
  assert.equal(second.status, 201);
  const b = new TestBrowser();
  const html = await (await b.request(pageOf(first))).text();
  assert.match(html, /<h1>Link replaced<\/h1>/, 'the older link no longer opens the form');
  assert.equal(await choose(second.body.link, 'vic chose a long password'), 200);

  const again = await api(`/principals/${id}/password-link`, { method: 'POST' });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'CONFLICT');
  assert.match(again.body.error.message, /^the person already has a password: they sign in with it/);
  const open = await server.runtime.db.query(
    'SELECT 1 FROM password_links WHERE principal_id = $1 AND used_at IS NULL AND replaced_at IS NULL',
    [id],
  );
  assert.equal(open.rowCount, 0, 'a refused request replaces nothing and makes nothing');
});

test('two requests at once leave exactly one open link', async () => {
  const { id } = await invited('wen@example.com');
  const both = await Promise.all([
    api(`/principals/${id}/password-link`, { method: 'POST' }),
    api(`/principals/${id}/password-link`, { method: 'POST' }),
  ]);
  assert.deepEqual(
    both.map((r) => r.status),
    [201, 201],
  );
  const statuses = await Promise.all(both.map(async (r) => (await fetch(r.body.link)).status));
  assert.deepEqual(statuses.sort(), [200, 410]);
});

test('refusals: nobody, not a human, deactivated, a passkey or linked account, a bad id, no admin token; never a 500', async () => {
  const missing = await api('/principals/00000000-0000-4000-8000-000000000000/password-link', { method: 'POST' });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'NOT_FOUND');
  assert.equal((await api('/principals/not-a-uuid/password-link', { method: 'POST' })).status, 400);
  const service = await api('/principals', {
    method: 'POST',
    body: { type: 'service', name: 'billing-bot', service_type: 'backend' },
  });
  const notHuman = await api(`/principals/${service.body.id}/password-link`, { method: 'POST' });
  assert.equal(notHuman.status, 400);
  assert.equal(notHuman.body.error.message, 'only humans have passwords');

  const { id: xia } = await invited('xia@example.com');
  assert.equal((await api(`/principals/${xia}/deactivate`, { method: 'POST' })).status, 200);
  const off = await api(`/principals/${xia}/password-link`, { method: 'POST' });
  assert.equal(off.status, 409);
  assert.match(off.body.error.message, /deactivated/);

  const { id: yan } = await invited('yan@example.com');
  await server.runtime.db.query(
    "INSERT INTO external_identities (provider, subject, principal_id) VALUES ('github', '42', $1)",
    [yan],
  );
  const linked = await api(`/principals/${yan}/password-link`, { method: 'POST' });
  assert.equal(linked.status, 409);
  assert.match(linked.body.error.message, /already signs in with a linked account/);

  const unauthenticated = await fetch(`${server.issuer}/api/v1/principals/${yan}/password-link`, { method: 'POST' });
  assert.equal(unauthenticated.status, 401);
});

test('a platform admin may send a link to any human without a way in; a less trusted caller only to accounts a link made', async () => {
  const made = await api('/principals', { method: 'POST', body: { type: 'human', email: 'zoe@example.com' } });
  assert.equal(made.status, 201);
  await assert.rejects(
    issueSetupLink(server.runtime.db, { who: { email: 'ZOE@example.com' }, ttlSeconds: 60, onlyLinkMade: true }),
    { statusCode: 409, message: /not made with a choose-your-password link/ },
  );
  await assert.rejects(issueSetupLink(server.runtime.db, { who: { email: 'nobody@example.com' }, ttlSeconds: 60 }), {
    statusCode: 404,
  });
  const r = await api(`/principals/${made.body.id}/password-link`, { method: 'POST' });
  assert.equal(r.status, 201, 'the platform admin may');
  assert.equal(
    (await issueSetupLink(server.runtime.db, { who: { email: 'zoe@example.com' }, ttlSeconds: 60, onlyLinkMade: true }))
      .email,
    'zoe@example.com',
    'once a link made it, by email',
  );

  const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as any;
  const op = doc.paths['/api/v1/principals/{id}/password-link'].post;
  assert.equal(op.operationId, 'issuePasswordLink');
  assert.ok(op.responses['201'] && op.responses['409'] && op.responses['404']);
});
