import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser, field, formAction } from './browser.ts';
import { codeFlow } from '../support/code-flow.ts';
import { deliverDue } from '../../src/identity/webhooks/deliver.ts';
import { createAddressPolicy } from '../../src/kit/outbound/address-policy.ts';

/**
 * Identity's events reach webhooks signed per Standard Webhooks (standardwebhooks.com), retried with backoff, each
 * delivery logged; the same events are in the change log, searchable. The receiver here checks signatures the way the
 * specification describes, with its own HMAC, not the service's code.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PASSWORD = 'correct horse battery staple';
const CALLBACK = 'http://localhost:8765/callback';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** What the receiver answered. */
  status: number;
}

/** A webhook receiver: answers each path with the statuses queued for it (then 204), and lets a test wait for a message. */
function receiver() {
  const received: Received[] = [];
  const waiting: { test: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  const answers = new Map<string, number[]>();
  const taken = (test: (r: Received) => boolean) => (r: Received) => r.status < 300 && test(r);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const status = answers.get(req.url ?? '')?.shift() ?? 204;
      const r = { path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body), status };
      received.push(r);
      res.writeHead(status).end();
      for (const w of [...waiting])
        if (w.test(r)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(r);
        }
    });
  });
  return {
    received,
    answers,
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    /** The first message, already received or still to come, that `test` accepts and that was answered 2xx. */
    next(test: (r: Received) => boolean): Promise<Received> {
      const seen = received.find(taken(test));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiting.push({ test: taken(test), resolve }));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The specification's verification, written from its text: HMAC-SHA256 over `id.timestamp.body` with the base64 secret. */
function verifiedBySpec(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${r.body}`).digest('base64');
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

describe('identity webhooks', () => {
  let server: Server;
  let base: string;
  const hooks = receiver();
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );
  let everything: { id: string; secret: string };
  let failures: { id: string; secret: string };
  let clientId: string;

  before(async () => {
    base = await hooks.start();
    server = await startServer('idwebhooks', {
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
      IDENTITY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      IDENTITY_WEBHOOK_POLL_MS: '100',
    });
    ({ clientId } = await server.registerApp({
      name: 'Web',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid'],
      firstParty: true,
    }));
    const all = await api('/webhooks', { method: 'POST', body: { url: `${base}/all`, description: 'everything' } });
    assert.equal(all.status, 201, JSON.stringify(all.body));
    everything = { id: all.body.webhook.id, secret: all.body.secret };
    const only = await api('/webhooks', {
      method: 'POST',
      body: { url: `${base}/failures`, events: ['signin.failed'] },
    });
    assert.equal(only.status, 201, JSON.stringify(only.body));
    failures = { id: only.body.webhook.id, secret: only.body.secret };
  });
  after(async () => {
    await server?.close();
    await hooks.close();
  });

  test('the secret is shown once, stored sealed, and bad webhooks are refused with reasons', async () => {
    assert.match(everything.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const listed = await api('/webhooks');
    assert.equal(listed.status, 200);
    assert.equal(JSON.stringify(listed.body).includes(everything.secret), false);
    const stored = await server.runtime.db.query<{ row: string }>('SELECT row_to_json(w)::text AS row FROM webhooks w');
    const secretBytes = everything.secret.slice('whsec_'.length);
    for (const r of stored.rows) assert.equal(r.row.includes(secretBytes), false);

    for (const [body, reason] of [
      [{ url: 'javascript:alert(1)' }, /http and https/],
      [{ url: 'http://169.254.169.254/latest/meta-data' }, /link-local.*metadata/],
      [{ url: 'http://10.0.0.5/hook' }, /private address/],
      [{ url: 'not a url' }, /absolute http or https URL/],
      [{ url: `${base}/x`, events: ['principal.exploded'] }, /unknown event type: principal.exploded/],
      [{}, /url/],
    ] as const) {
      const r = await api('/webhooks', { method: 'POST', body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, reason);
    }
    const missing = await api(`/webhooks/${crypto.randomUUID()}`, { method: 'PATCH', body: { enabled: false } });
    assert.equal(missing.status, 404);
    const events = await api('/webhook-events');
    assert.ok(events.body.events.some((e: { type: string }) => e.type === 'membership.changed'));
  });

  test('a new person reaches the webhook signed per the specification, and its id is the change-log entry', async () => {
    const created = await api('/principals', {
      method: 'POST',
      body: { type: 'human', email: 'nadia@acme.example', display_name: 'Nadia' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const got = await hooks.next((r) => r.path === '/all' && r.json.type === 'principal.created');
    assert.ok(verifiedBySpec(everything.secret, got), 'the signature verifies');
    assert.equal(verifiedBySpec(failures.secret, got), false, 'another webhook’s secret does not verify it');
    assert.match(String(got.headers['webhook-id']), /^msg_/);
    assert.equal(got.json.data.target.id, created.body.id);
    assert.equal(got.json.data.actor.kind, 'admin-token');
    assert.equal(JSON.stringify(got.json).includes(PASSWORD), false, 'the password is not in the event');
    const log = await api(`/admin-log?event=principal.created&target_id=${created.body.id}`);
    assert.equal(log.body.items.length, 1);
    assert.equal(log.body.items[0].id, got.json.data.id);
  });

  test('sign-ins succeeded and failed are events; a webhook listening for failures hears only those', async () => {
    await server.createHuman('sam@acme.example', PASSWORD);
    const browser = new TestBrowser();
    const ok = await codeFlow(browser, {
      issuer: server.issuer,
      clientId,
      redirectUri: CALLBACK,
      scope: 'openid',
      credentials: { email: 'sam@acme.example', password: PASSWORD },
    });
    assert.equal(ok.status, 200);
    const succeeded = await hooks.next((r) => r.path === '/all' && r.json.type === 'signin.succeeded');
    assert.ok(verifiedBySpec(everything.secret, succeeded));

    const other = new TestBrowser();
    const authorize = new URL('/oauth/authorize', server.issuer);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const page = await other.follow(authorize.href, CALLBACK);
    const refused = await other.follow(new URL(formAction(page.html)!, server.issuer).href, CALLBACK, {
      form: { csrf: field(page.html, 'csrf')!, email: 'sam@acme.example', password: 'wrong password' },
    });
    assert.match(refused.html, /not correct/);
    const failed = await hooks.next((r) => r.path === '/failures');
    assert.ok(verifiedBySpec(failures.secret, failed));
    assert.equal(failed.json.type, 'signin.failed');
    assert.equal(failed.json.data.target.id, 'sam@acme.example');
    assert.equal(failed.json.data.actor.kind, 'anonymous');
    assert.equal(
      hooks.received.filter((r) => r.path === '/failures' && r.json.type !== 'signin.failed').length,
      0,
      'the filtered webhook got nothing else',
    );
    const log = await api('/admin-log?event=signin.failed');
    assert.equal(log.body.items[0].target.id, 'sam@acme.example');
    assert.equal(log.body.items[0].client_ip, '127.0.0.1');
  });

  test('a refused delivery is retried with the same message id until the receiver takes it', async () => {
    const r = await api('/webhooks', {
      method: 'POST',
      body: { url: `${base}/flaky`, events: ['principal.deactivated'] },
    });
    hooks.answers.set('/flaky', [500, 503]);
    const person = await server.createHuman('flaky@acme.example', PASSWORD);
    assert.equal((await api(`/principals/${person}/deactivate`, { method: 'POST' })).status, 200);
    const got = await hooks.next((m) => m.path === '/flaky');
    const attempts = hooks.received.filter((m) => m.path === '/flaky');
    assert.equal(attempts.length, 3);
    assert.equal(new Set(attempts.map((m) => m.headers['webhook-id'])).size, 1, 'one message id on every attempt');
    assert.ok(verifiedBySpec(r.body.secret, got));
    const log = await api(`/webhooks/${r.body.webhook.id}/deliveries`);
    assert.equal(log.status, 200);
    const [delivery] = log.body.items;
    // The answer of the last attempt is recorded once the receiver has it; wait for that row rather than a time.
    let row = delivery;
    while (row.state !== 'delivered') {
      await new Promise((res) => setImmediate(res));
      row = (await api(`/webhooks/${r.body.webhook.id}/deliveries`)).body.items[0];
    }
    assert.equal(row.attempts, 3);
    assert.equal(row.event, 'principal.deactivated');
  });

  test('a paused webhook gets nothing; a test send answers what the receiver said', async () => {
    const r = await api('/webhooks', { method: 'POST', body: { url: `${base}/paused`, enabled: false } });
    await server.createHuman('quiet@acme.example', PASSWORD);
    await api('/principals', { method: 'POST', body: { type: 'human', email: 'q2@acme.example', display_name: 'Q' } });
    await hooks.next((m) => m.path === '/all' && m.json.data.after?.email === 'q2@acme.example');
    assert.equal(hooks.received.filter((m) => m.path === '/paused').length, 0);

    const sent = await api(`/webhooks/${r.body.webhook.id}/test`, { method: 'POST' });
    assert.deepEqual(sent.body, { delivered: true, status: 204, error: null });
    const test = hooks.received.find((m) => m.path === '/paused')!;
    assert.equal(test.json.type, 'webhook.test');
    assert.ok(verifiedBySpec(r.body.secret, test));
    hooks.answers.set('/paused', [410]);
    const refused = await api(`/webhooks/${r.body.webhook.id}/test`, { method: 'POST' });
    assert.equal(refused.body.delivered, false);
    assert.equal(refused.body.status, 410);
    const log = await api(`/webhooks/${r.body.webhook.id}/deliveries?state=failed`);
    assert.equal(log.body.items.length, 1);
  });

  test('instances sharing the database send each delivery once', async () => {
    const r = await api('/webhooks', { method: 'POST', body: { url: `${base}/once`, events: ['principal.created'] } });
    for (let i = 0; i < 30; i++)
      await api('/principals', {
        method: 'POST',
        body: { type: 'human', email: `p${i}@once.example`, display_name: 'P' },
      });
    // Two more senders on the same database, beside the server's own loop.
    const deps = {
      db: server.runtime.db,
      secretKey: server.runtime.secretKey,
      policy: createAddressPolicy(['127.0.0.1']),
      log: server.app.log,
    };
    await Promise.all([deliverDue(deps), deliverDue(deps), deliverDue(deps)]);
    for (let i = 0; i < 30; i++)
      await hooks.next((m) => m.path === '/once' && m.json.data.after?.email === `p${i}@once.example`);
    const ids = hooks.received.filter((m) => m.path === '/once').map((m) => m.headers['webhook-id']);
    assert.equal(ids.length, 30);
    assert.equal(new Set(ids).size, 30);
    assert.ok(r.body.secret);
  });
});
