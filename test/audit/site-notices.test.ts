import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { App } from '../../src/kit/app.ts';
import { buildAuditApp } from '../../src/audit/app.ts';
import { loadAuditConfig } from '../../src/audit/config.ts';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';

/**
 * A site's notices: by mail to a local SMTP server and by webhook to a local receiver that checks the Standard Webhooks
 * signature itself (from the specification, not with our code). A run that scores lower or finds new serious or
 * critical failures is notified once per destination; a failed webhook is retried with the same webhook-id; a restart
 * neither loses nor repeats a notice.
 */

interface Mail {
  to: string[];
  text: string;
}
interface Hook {
  headers: IncomingHttpHeaders;
  body: string;
}

const mails: Mail[] = [];
const hooks: Hook[] = [];
let waiters: Array<() => void> = [];
const changed = () => {
  const w = waiters;
  waiters = [];
  for (const resolve of w) resolve();
};
/** Waits (without a timer) until `ready` holds, checked at each mail or webhook that arrives. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise<void>((resolve) => waiters.push(resolve));
}

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const text = raw
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      mails.push({ to: session.envelope.rcptTo.map((r) => r.address), text });
      changed();
      done();
    });
  },
});

/** What the receiver answers next: queued statuses first, then 204. */
const answers: number[] = [];
const receiver: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(answers.shift() ?? 204).end();
    changed();
  });
});

/**
 * The Standard Webhooks check, written from the specification (standardwebhooks.com): the secret's bytes are the
 * base64 after `whsec_`; the signed content is `{webhook-id}.{webhook-timestamp}.{body}`; `webhook-signature` lists
 * space-separated `v1,<base64 HMAC-SHA256>`; the timestamp within five minutes.
 */
function signatureHolds(secret: string, hook: Hook): boolean {
  const id = String(hook.headers['webhook-id']);
  const ts = String(hook.headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${hook.body}`).digest();
  return String(hook.headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [version, mac] = sig.split(',');
      const given = Buffer.from(mac ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

let h: AuditHarness;
let app: App;
let web: TestSite;
let hookUrl: string;
const pages: Record<string, string> = { '/': page('Clean', '<p>Fine.</p>') };

before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/audit`;
  web = await serveSite(pages);
  h = await startAudit(
    {
      AUDIT_CONCURRENCY: '1',
      AUDIT_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      AUDIT_MAIL_FROM: 'audits@example.test',
      AUDIT_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    },
    'auditnotices',
  );
  app = h.app;
});

after(async () => {
  await app?.close();
  await h?.sql.end().catch(() => {});
  await h?.database.drop();
  await web?.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, key = h.key) =>
  app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

let siteId: string;
let secret: string;

async function runToEnd(): Promise<string> {
  const run = await call('POST', `/api/v1/sites/${siteId}/runs`);
  assert.equal(run.statusCode, 202, run.body);
  const { id } = run.json();
  for (;;) {
    const { rows } = await h.sql.query('SELECT status, notified_at FROM jobs WHERE id = $1', [id]);
    if (rows[0].notified_at) {
      assert.equal(rows[0].status, 'completed');
      return id;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('notice settings: bad ones are 400, the webhook secret is answered once and stored sealed', async () => {
  siteId = (await call('POST', '/api/v1/sites', { name: 'Shop <b>', url: `${web.origin}/` })).json().id;
  const url = `/api/v1/sites/${siteId}/notifications`;
  const base = { emails: [], webhookUrl: null, onScoreDrop: true, onNewFailures: true };
  const cases: Array<[unknown, RegExp]> = [
    [{ ...base, emails: ['not-an-address'] }, /emails/],
    [{ ...base, emails: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`) }, /emails/],
    [{ ...base, webhookUrl: 'ftp://127.0.0.1/' }, /webhookUrl must use http or https; got ftp/],
    [{ ...base, webhookUrl: 'nonsense' }, /webhookUrl must be an absolute http or https URL/],
    [
      { ...base, webhookUrl: 'http://10.1.2.3/hook' },
      /webhookUrl cannot be reached: refused: 10\.1\.2\.3 is a private address/,
    ],
    [{ ...base, webhookUrl: 'http://user:pw@127.0.0.1/' }, /user name or password/],
    [{ ...base, onScoreDrop: 'yes' }, /onScoreDrop/],
    [{ ...base, slack: true }, /unknown property "slack"/],
    [{ emails: [] }, /webhookUrl/],
  ];
  for (const [body, message] of cases) {
    const res = await call('PUT', url, body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.match(res.json().error.message, message, JSON.stringify(body));
  }
  assert.equal((await call('POST', `${url}/test`)).statusCode, 409, 'a test with nowhere to send it');
  assert.equal((await call('PUT', url, base, h.otherKey)).statusCode, 404);
  assert.equal((await call('GET', url, undefined, h.otherKey)).statusCode, 404);

  const saved = await call('PUT', url, { ...base, emails: ['Ops@Example.com'], webhookUrl: hookUrl });
  assert.equal(saved.statusCode, 200, saved.body);
  secret = saved.json().webhookSecret;
  assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(saved.json().emails, ['ops@example.com']);
  const read = (await call('GET', url)).json();
  assert.equal(read.webhookSecret, undefined, 'never answered again');
  assert.equal(read.hasWebhookSecret, true);
  assert.ok(!JSON.stringify(read).includes(secret.slice(6)));
  const { rows } = await h.sql.query('SELECT webhook_secret_sealed FROM site_notifications WHERE site_id = $1', [
    siteId,
  ]);
  assert.ok(!rows[0].webhook_secret_sealed.includes(secret.slice(6)), 'stored sealed, not in clear');
  // Saved again without newSecret, the secret stays.
  const again = (await call('PUT', url, { ...base, emails: ['ops@example.com'], webhookUrl: hookUrl })).json();
  assert.equal(again.webhookSecret, undefined);
});

test('send a test: a mail and a signed webhook, each reported', async () => {
  const res = await call('POST', `/api/v1/sites/${siteId}/notifications/test`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(
    res.json().results.map((r: any) => [r.channel, r.delivered, r.error]),
    [
      ['email', true, null],
      ['webhook', true, null],
    ],
  );
  await until(() => mails.length >= 1 && hooks.length >= 1);
  assert.deepEqual(mails[0]!.to, ['ops@example.com']);
  assert.match(mails[0]!.text, /Subject: Test notice for Shop <b>/);
  assert.match(mails[0]!.text, /From: audits@example\.test/);
  assert.ok(signatureHolds(secret, hooks[0]!), 'the signature holds by the specification');
  assert.ok(!signatureHolds(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, hooks[0]!), 'another secret fails');
  assert.equal(JSON.parse(hooks[0]!.body).type, 'audit.test');
  assert.equal(JSON.parse(hooks[0]!.body).data.site.name, 'Shop <b>');
  assert.match(String(hooks[0]!.headers['webhook-id']), /^msg_/);
});

test('a run that finds new serious failures is notified once per destination; the first run is not', async () => {
  mails.length = 0;
  hooks.length = 0;
  await runToEnd();
  assert.equal((await h.sql.query('SELECT 1 FROM notification_deliveries')).rows.length, 0, 'nothing to compare with');

  pages['/'] = page('Dirty', '<img src="/a.png"><img src="/b.png">');
  // The receiver refuses the first attempt: the notice is tried again, with the same webhook-id.
  answers.push(503);
  const second = await runToEnd();
  await until(() => mails.length >= 1 && hooks.length >= 2);
  const [refused, accepted] = hooks as [Hook, Hook];
  assert.equal(refused.headers['webhook-id'], accepted.headers['webhook-id']);
  assert.ok(signatureHolds(secret, accepted));
  const notice = JSON.parse(accepted.body);
  assert.equal(notice.type, 'audit.regressed');
  assert.equal(notice.data.run.id, second);
  assert.equal(notice.data.site.id, siteId);
  assert.ok(notice.data.newFailureCount >= 1);
  assert.ok(notice.data.newFailures.every((f: any) => ['serious', 'critical'].includes(f.impact)));
  assert.ok(notice.data.newFailures.some((f: any) => f.ruleId === 'image-alt'));
  assert.ok(notice.data.scoreDrop > 0);
  assert.match(mails[0]!.text, /Subject: Accessibility regression on Shop <b>: score down/);
  assert.match(mails[0]!.text, /image-alt/);

  for (;;) {
    const items = (await call('GET', `/api/v1/sites/${siteId}/notifications/deliveries`)).json().items;
    const hook = items.find((d: any) => d.channel === 'webhook');
    if (hook?.status === 'delivered') {
      assert.equal(hook.attempts, 2);
      assert.equal(hook.id, accepted.headers['webhook-id']);
      assert.equal(items.find((d: any) => d.channel === 'email').attempts, 1);
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The same failures again: nothing new, no notice.
  await runToEnd();
  const { rows } = await h.sql.query('SELECT count(*)::int AS n FROM notification_deliveries');
  assert.equal(rows[0].n, 2);
});

test('a restart neither loses nor repeats a notice: one left pending is sent once by the next instance', async () => {
  mails.length = 0;
  hooks.length = 0;
  pages['/'] = page('Worse', '<img src="/a.png"><img src="/b.png"><input type="text"><img src="/c.png">');
  // Every attempt is refused until the instance has stopped.
  answers.push(...Array.from({ length: 50 }, () => 503));
  const run = await runToEnd();
  await until(() => hooks.length >= 1);
  await app.close();
  const { rows: before } = await h.sql.query(
    "SELECT id, status FROM notification_deliveries WHERE job_id = $1 AND channel = 'webhook'",
    [run],
  );
  assert.equal(before.length, 1);
  assert.equal(before[0].status, 'pending', 'not lost: still to be sent');
  answers.length = 0;
  hooks.length = 0;
  await h.sql.query('UPDATE notification_deliveries SET next_attempt_at = now() WHERE id = $1', [before[0].id]);
  app = await buildAuditApp(loadAuditConfig(h.env));
  await app.ready();
  await until(() => hooks.length >= 1);
  for (;;) {
    const { rows } = await h.sql.query('SELECT status FROM notification_deliveries WHERE id = $1', [before[0].id]);
    if (rows[0].status === 'delivered') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(hooks[0]!.headers['webhook-id'], before[0].id);
  const { rows } = await h.sql.query('SELECT count(*)::int AS n FROM notification_deliveries WHERE job_id = $1', [run]);
  assert.equal(rows[0].n, 2, 'the run was decided once: no second set of notices after the restart');
  assert.equal(hooks.length, 1);
  assert.equal(mails.filter((m) => /Worse|regression/.test(m.text)).length, 1, 'its mail went once');
});
