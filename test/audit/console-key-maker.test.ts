import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { basic, form, managementApi, startServer, type Server } from '../identity/support.ts';
import { TestBrowser } from '../identity/browser.ts';
import { codeFlow } from '../support/code-flow.ts';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';
import { waitFor } from '../support/wait.ts';

/**
 * A key made in the console speaks for its maker, so it counts only while they hold the audits right: taken from them
 * (their console rights, a deactivation, an app's allowed scopes) the key is refused with 403; given back, it works
 * again. The audit service asks identity's `POST /api/v1/held-scope` as a resource server (answers kept 5 s).
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const CALLBACK = 'http://localhost:8766/console/callback';
const PASSWORD = 'correct horse battery staple';

let identity: Server;
let h: AuditHarness;
let site: TestSite;
let resourceServer: { clientId: string; secret: string | undefined };
let consoleClient: string;
let machine: { id: string; clientId: string; secret: string | undefined };
const api = managementApi(
  () => identity.issuer,
  () => ADMIN_TOKEN,
);

/** Waits until a request with `key` is answered `status`: the audit service reuses identity's answer up to 5 s. */
const keyAnswers = (key: string, status: number, what: string) =>
  waitFor(what, async () => (await listWith(key)) === status, 15_000);

async function personToken(email: string): Promise<string> {
  const got = await codeFlow(new TestBrowser(), {
    issuer: identity.issuer,
    clientId: consoleClient,
    redirectUri: CALLBACK,
    scope: 'openid audits',
    credentials: { email, password: PASSWORD },
  });
  assert.equal(got.status, 200, JSON.stringify(got.tokens ?? got.callback.search));
  assert.ok(got.tokens.scope.split(' ').includes('audits'), got.tokens.scope);
  return got.tokens.access_token;
}

async function makeKey(token: string): Promise<string> {
  const made = await h.call('POST', '/api/v1/keys', { name: 'ci' }, token);
  assert.equal(made.statusCode, 201, made.body);
  return made.json().key;
}

const listWith = async (key: string) => (await h.call('GET', '/api/v1/audits', undefined, key)).statusCode;

async function heldScope(body: unknown, authorization?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${identity.issuer}/api/v1/held-scope`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

before(async () => {
  identity = await startServer('auditkeymaker', {
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
    IDENTITY_EXTRA_SCOPES: 'audits',
  });
  resourceServer = await identity.registerApp({
    name: 'Audit service',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  consoleClient = (
    await identity.registerApp({
      name: 'Console',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid', 'audits'],
      firstParty: true,
    })
  ).clientId;
  machine = await identity.registerApp({ name: 'Release bot', appType: 'machine', allowedScopes: ['audits'] });
  h = await startAudit(
    {
      AUDIT_IDENTITY_URL: identity.issuer,
      AUDIT_IDENTITY_CLIENT_ID: resourceServer.clientId,
      AUDIT_IDENTITY_CLIENT_SECRET: resourceServer.secret!,
      // No run is carried out here (nothing to audit on the internet): the tests look at what is queued.
      AUDIT_CONCURRENCY: '0',
      AUDIT_POLL_MS: '100',
    },
    'auditkeymaker',
  );
  site = await serveSite({ '/': page('Shop', '<p>Open</p>') });
});

after(async () => {
  await site?.close();
  await h?.close();
  await identity?.close();
});

describe('a console key counts only while its maker holds the audits right', () => {
  test('a person loses the right: their key is refused (403); given back, it works again', async () => {
    const ada = await identity.createHuman('ada@acme.example', PASSWORD);
    const rights = (list: string[]) =>
      api(`/principals/${ada}/console-rights`, { method: 'PUT', body: { rights: list } });
    assert.equal((await rights(['audits'])).status, 200);
    const key = await makeKey(await personToken('ada@acme.example'));
    assert.equal(await listWith(key), 200);

    assert.equal((await rights([])).status, 200);
    await keyAnswers(key, 403, 'the key refused once the right was taken');
    const refused = await h.call('POST', '/api/v1/audits', { url: 'https://example.com/' }, key);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.code, 'FORBIDDEN');
    assert.match(refused.json().error.message, /no longer holds the scope audits/);

    assert.equal((await rights(['audits'])).status, 200);
    await keyAnswers(key, 200, 'the key accepted once the right was given back');

    assert.equal((await api(`/principals/${ada}/deactivate`, { method: 'POST' })).status, 200);
    await keyAnswers(key, 403, 'the key refused once its maker was deactivated');
  });

  test("an app's token made the key: taking audits from the app's allowed scopes refuses it", async () => {
    const token = await form(
      `${identity.issuer}/oauth/token`,
      { grant_type: 'client_credentials', scope: 'audits' },
      { authorization: basic(machine.clientId, machine.secret!) },
    );
    assert.equal(token.status, 200, token.text);
    const key = await makeKey(token.json.access_token);
    assert.equal(await listWith(key), 200);
    const patched = await api(`/applications/${machine.id}`, { method: 'PATCH', body: { allowed_scopes: [] } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await keyAnswers(key, 403, "the key refused once the app's scope was taken");
  });

  test('a key made on the command line belongs to no one and needs no answer from identity', async () => {
    assert.equal(await listWith(h.key), 200);
  });
});

describe("a site's schedule runs only while its owner holds the audits right", () => {
  test('the due slot is skipped, saying why, while the right is gone; given back, the next slot queues its run', async () => {
    const dan = await identity.createHuman('dan@acme.example', PASSWORD);
    const rights = (list: string[]) =>
      api(`/principals/${dan}/console-rights`, { method: 'PUT', body: { rights: list } });
    assert.equal((await rights(['audits'])).status, 200);
    const token = await personToken('dan@acme.example');
    const made = await h.call('POST', '/api/v1/sites', { name: 'Shop', url: `${site.origin}/` }, token);
    assert.equal(made.statusCode, 201, made.body);
    const siteId = made.json().id;
    const scheduled = await h.call(
      'PUT',
      `/api/v1/sites/${siteId}/schedule`,
      { kind: 'daily', timeZone: 'UTC' },
      token,
    );
    assert.equal(scheduled.statusCode, 200, scheduled.body);
    const slot = async () =>
      (await h.sql.query('SELECT last_error, last_job_id, last_run_at FROM schedules WHERE site_id = $1', [siteId]))
        .rows[0] as { last_error: string | null; last_job_id: string | null; last_run_at: Date | null };
    const due = () =>
      h.sql.query(
        "UPDATE schedules SET next_run_at = now() - interval '1 minute', last_run_at = NULL WHERE site_id = $1",
        [siteId],
      );

    assert.equal((await rights([])).status, 200);
    await due();
    await waitFor('the due slot to be taken', async () => (await slot()).last_run_at, 15_000);
    assert.match((await slot()).last_error ?? '', /^skipped: the site's owner no longer holds the audits right/);
    assert.equal((await h.sql.query('SELECT 1 FROM jobs WHERE site_id = $1', [siteId])).rowCount, 0);

    assert.equal((await rights(['audits'])).status, 200);
    // The audit service may reuse identity's last answer for up to 5 s: each new due slot asks again once it expired.
    await waitFor(
      'a run queued once the right was given back',
      async () => {
        const now = await slot();
        if (!now.last_job_id && now.last_run_at) await due();
        return now.last_job_id;
      },
      15_000,
    );
    assert.equal((await h.sql.query('SELECT 1 FROM jobs WHERE site_id = $1', [siteId])).rowCount, 1);
  });
});

describe('POST /api/v1/held-scope at identity', () => {
  test('answers a resource server: held for a live right, not for an unknown subject or a scope not held', async () => {
    const auth = basic(resourceServer.clientId, resourceServer.secret!);
    const bea = await identity.createHuman('bea@acme.example', PASSWORD);
    assert.equal(
      (await api(`/principals/${bea}/console-rights`, { method: 'PUT', body: { rights: ['audits'] } })).status,
      200,
    );
    assert.deepEqual((await heldScope({ subject: bea, scope: 'audits' }, auth)).body, {
      subject: bea,
      scope: 'audits',
      held: true,
    });
    assert.equal((await heldScope({ subject: bea, scope: 'admin' }, auth)).body.held, false);
    assert.equal((await heldScope({ subject: 'no-such-subject', scope: 'audits' }, auth)).body.held, false);
    assert.equal(
      (await heldScope({ subject: '00000000-0000-4000-8000-000000000000', scope: 'audits' }, auth)).body.held,
      false,
    );
  });

  test('refuses anyone but a resource server (401), and bad bodies (400)', async () => {
    const body = { subject: 'x', scope: 'audits' };
    for (const authorization of [
      undefined,
      basic(resourceServer.clientId, 'wrong'),
      basic(machine.clientId, machine.secret!),
      `Bearer ${ADMIN_TOKEN}`,
      'Basic %%%',
    ]) {
      const res = await heldScope(body, authorization);
      assert.equal(res.status, 401, `${authorization}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
    }
    const auth = basic(resourceServer.clientId, resourceServer.secret!);
    for (const bad of [
      {},
      { subject: '', scope: 'audits' },
      { subject: 'x' },
      { subject: 'x', scope: 'a b' },
      { ...body, more: 1 },
    ]) {
      const res = await heldScope(bad, auth);
      assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
  });
});

describe('identity down', () => {
  test('a console key is answered 503 (its maker cannot be checked); a command-line key still works', async () => {
    const cara = await identity.createHuman('cara@acme.example', PASSWORD);
    await api(`/principals/${cara}/console-rights`, { method: 'PUT', body: { rights: ['audits'] } });
    const key = await makeKey(await personToken('cara@acme.example'));
    await identity.app.close();
    await keyAnswers(key, 503, 'a 503 with identity stopped');
    const res = await h.call('GET', '/api/v1/audits', undefined, key);
    assert.equal(res.headers['retry-after'], '5');
    assert.match(res.json().error.message, /cannot be checked right now/);
    assert.equal(await listWith(h.key), 200);
  });
});
