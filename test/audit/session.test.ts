import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seal } from '../../src/kit/crypto.ts';
import { runAudit } from '../../src/audit/engine/auditor.ts';
import { BrowserHost } from '../../src/audit/engine/browser-host.ts';
import { resolveConfig } from '../../src/audit/request/resolve.ts';
import {
  RefusedDestinationError,
  createAddressPolicy,
  type AddressPolicy,
} from '../../src/kit/outbound/address-policy.ts';
import { API_TOKEN, PASSWORD, SESSION_COOKIE, serveSignInSite, signInSteps, type SignInSite } from './sign-in-site.ts';
import { startAudit, waitForJob, type AuditHarness } from './support.ts';

/**
 * Pages behind a sign-in: steps run in the audit's browser before its first page, with the password a stored
 * secret the job only names; the crawl goes on signed in and never follows a sign-out link; a failing step names
 * itself; every navigation of the steps meets the address guard; headers go to the audited origin only.
 */

let h: AuditHarness;
let site: SignInSite;

before(async () => {
  // Steps that cannot succeed wait the page time limit: the shortest there is.
  h = await startAudit({ AUDIT_PAGE_TIMEOUT_SECONDS: '5' }, 'auditsession');
  site = await serveSignInSite();
  assert.equal((await h.call('PUT', '/api/v1/secrets/SITE_PASSWORD', { value: PASSWORD })).statusCode, 201);
  assert.equal((await h.call('PUT', '/api/v1/secrets/API_TOKEN', { value: API_TOKEN })).statusCode, 201);
});

after(async () => {
  await site?.close();
  await h?.close();
});

test('secrets are stored by name, replaced, listed and deleted, per credential, and no answer carries a value', async () => {
  const created = await h.call('PUT', '/api/v1/secrets/SCRATCH', { value: 'first value' });
  assert.equal(created.statusCode, 201, created.body);
  assert.deepEqual(Object.keys(created.json()).sort(), ['createdAt', 'name', 'updatedAt']);
  const replaced = await h.call('PUT', '/api/v1/secrets/SCRATCH', { value: 'second value' });
  assert.equal(replaced.statusCode, 200, replaced.body);
  const list = await h.call('GET', '/api/v1/secrets');
  assert.deepEqual(
    list.json().items.map((s: { name: string }) => s.name),
    ['API_TOKEN', 'SCRATCH', 'SITE_PASSWORD'],
  );
  for (const res of [created, replaced, list]) {
    assert.doesNotMatch(res.body, /first value|second value/);
    assert.ok(!res.body.includes(PASSWORD));
  }
  assert.deepEqual((await h.call('GET', '/api/v1/secrets', undefined, h.otherKey)).json(), { items: [] });
  assert.equal((await h.call('DELETE', '/api/v1/secrets/SCRATCH', undefined, h.otherKey)).statusCode, 404);
  assert.equal((await h.call('DELETE', '/api/v1/secrets/SCRATCH')).statusCode, 204);
  const again = await h.call('DELETE', '/api/v1/secrets/SCRATCH');
  assert.equal(again.statusCode, 404);
  assert.equal(again.json().error.message, 'no secret SCRATCH');
  const short = await h.call('PUT', '/api/v1/secrets/SHORT', { value: 'abc' });
  assert.equal(short.statusCode, 400);
  assert.match(short.json().error.message, /value must NOT have fewer than 6 characters/);
  const badName = await h.call('PUT', '/api/v1/secrets/has-dash', { value: 'long enough' });
  assert.equal(badName.statusCode, 400);
  assert.match(badName.json().error.message, /name must match pattern/);
  const [stored] = (await h.sql.query("SELECT sealed FROM secrets WHERE name = 'SITE_PASSWORD'")).rows;
  assert.match(stored.sealed, /^v1\./);
  assert.ok(!stored.sealed.includes(PASSWORD));
});

test('signed in by its steps, the crawl audits the pages a signed-in person sees, and never follows a sign-out link', async () => {
  const res = await h.call('POST', '/audit', {
    url: `${site.origin}/account`,
    crawl: { depth: 2, maxPages: 10 },
    session: { steps: signInSteps(site.origin) },
  });
  assert.equal(res.statusCode, 200, res.body);
  const result = res.json();
  assert.deepEqual(
    result.pages.map((p: { url: string; title: string }) => [new URL(p.url).pathname, p.title]),
    [
      ['/account', 'Your account'],
      ['/settings', 'Settings'],
    ],
  );
  assert.ok(result.findings.some((f: any) => f.ruleId === 'image-alt' && f.selector === '#avatar'));
  assert.ok(result.findings.some((f: any) => f.ruleId === 'label' && f.selector === '#nickname'));
  assert.equal(site.signOuts, 0, 'no sign-out link was followed');
  assert.ok(!site.hits.some((hit) => /logout|session\/end/.test(hit)), site.hits.join(', '));
  // The page echoes the password; the result says it was there, never what it was.
  const echoed = result.findings.find((f: any) => f.selector === '#shown-password');
  assert.match(echoed.html, /value="\[secret\]"/);
  assert.ok(!res.body.includes(PASSWORD), 'the answer does not carry the password');
  assert.deepEqual(result.config.session.steps[2], {
    action: 'fill',
    selector: '#password',
    secret: 'SITE_PASSWORD',
  });
});

test("a session given as a cookie: the site's pages are audited signed in, and the cookie's value is in no answer", async () => {
  assert.equal((await h.call('PUT', '/api/v1/secrets/SESSION_ID', { value: SESSION_COOKIE })).statusCode, 201);
  const res = await h.call('POST', '/audit', {
    url: `${site.origin}/account`,
    session: { cookies: [{ name: 'sid', secret: 'SESSION_ID' }] },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().pages[0].title, 'Your account');
  assert.ok(!res.body.includes(SESSION_COOKIE));
});

test('a secret sealed under another PLATFORM_SECRET_KEY fails the audit, naming the secret to store again', async () => {
  assert.equal((await h.call('PUT', '/api/v1/secrets/OLD_KEY', { value: 'sealed before' })).statusCode, 201);
  const elsewhere = seal(randomBytes(32), 'sealed before', 'anything');
  await h.sql.query("UPDATE secrets SET sealed = $1 WHERE name = 'OLD_KEY'", [elsewhere]);
  const res = await h.call('POST', '/audit', {
    url: `${site.origin}/account`,
    session: { cookies: [{ name: 'sid', secret: 'OLD_KEY' }] },
  });
  assert.equal(res.statusCode, 500, res.body);
  assert.equal(
    res.json().error.message,
    'the audit failed: the secret "OLD_KEY" cannot be opened: it was stored under another PLATFORM_SECRET_KEY; store it again (PUT /api/v1/secrets/OLD_KEY)',
  );
  assert.equal((await h.call('DELETE', '/api/v1/secrets/OLD_KEY')).statusCode, 204);
});

test('without the session the same page is the signed-out one', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/account` });
  assert.equal(res.statusCode, 200, res.body);
  const result = res.json();
  assert.equal(result.pages[0].title, 'Please sign in');
  assert.ok(!result.findings.some((f: any) => f.ruleId === 'image-alt'));
  assert.equal(result.config.session, null);
});

test('a sign-in step that fails stops the audit with an error naming the step, without a retry', async () => {
  const steps = signInSteps(site.origin);
  steps[2] = { action: 'fill', selector: '#no-such-field', secret: 'SITE_PASSWORD' };
  const sync = await h.call('POST', '/audit', { url: `${site.origin}/account`, session: { steps } });
  assert.equal(sync.statusCode, 500, sync.body);
  assert.equal(
    sync.json().error.message,
    'the audit failed: sign-in step 3 of 5 (fill #no-such-field with the secret SITE_PASSWORD) failed: nothing matched within 5 s',
  );

  // A wrong password: the site sends the form back, and the step that waits for the signed-in page says where it is.
  assert.equal((await h.call('PUT', '/api/v1/secrets/WRONG', { value: 'not the password' })).statusCode, 201);
  const created = await h.call('POST', '/api/v1/audits', {
    url: `${site.origin}/account`,
    config: { session: { steps: signInSteps(site.origin, 'WRONG') } },
  });
  assert.equal(created.statusCode, 202, created.body);
  const job = await waitForJob(h, created.json().id, ['failed', 'completed']);
  assert.equal(job.status, 'failed');
  assert.equal(job.attempts, 1, 'a failed sign-in is not retried');
  assert.equal(
    job.error,
    `sign-in step 5 of 5 (waitForUrl /account) failed: the page did not reach a URL matching "/account" within 5 s; it is at ${site.origin}/login?error=1`,
  );
});

test('a session and ignore rules are checked when the audit is asked for: unknown secrets, refused step addresses, steps missing what their action needs, rules matching everything', async () => {
  const cases: Array<[unknown, number, string]> = [
    [
      { steps: signInSteps(site.origin, 'NOT_STORED') },
      400,
      'session uses the secret "NOT_STORED", not stored for this credential: store it first with PUT /api/v1/secrets/{name}',
    ],
    [
      { steps: [{ action: 'goto', url: 'http://127.0.0.2:8080/login' }] },
      400,
      "the session's goto step 1 (http://127.0.0.2:8080/login) cannot be audited: refused: 127.0.0.2 is a loopback address",
    ],
    [
      { steps: [{ action: 'fill', selector: '#user' }] },
      400,
      'session.steps[0] (fill) needs exactly one of value (no secret) or secret (the name of a stored secret)',
    ],
    [{ steps: [{ action: 'click', url: 'http://x/' }] }, 400, 'session.steps[0] (click) takes selector, not url'],
    [
      { steps: [{ action: 'goto', url: '/login' }] },
      400,
      'session.steps[0] (goto) needs an absolute http or https url; got "/login"',
    ],
    [{ steps: [] }, 400, 'session needs steps, cookies or headers: an empty session would audit the pages signed out'],
    [
      { headers: [{ name: 'Cookie', secret: 'API_TOKEN' }] },
      400,
      'session.headers[0] cannot set Cookie: the browser sets it (send cookies as session.cookies)',
    ],
    [
      { steps: [{ action: 'type', selector: '#x' }] },
      400,
      'body/session/steps/0/action must be one of "goto", "fill", "click", "waitForSelector", "waitForUrl"',
    ],
  ];
  for (const [session, status, message] of cases) {
    const res = await h.call('POST', '/audit', { url: `${site.origin}/account`, session });
    assert.equal(res.statusCode, status, `${JSON.stringify(session)}: ${res.body}`);
    assert.equal(res.json().error.message, message);
  }
  // Ignore rules go with a request too, and are checked the same way.
  const ignoreCases: Array<[unknown, string]> = [
    [
      [{ reason: 'everything', expires: '2030-01-01' }],
      'ignore[0] needs rule, selector or url: a rule matching everything would hide every failure',
    ],
    [
      [{ rule: 'label', reason: 'x', expires: '2030-02-30' }],
      'ignore[0].expires must be a date (YYYY-MM-DD); got "2030-02-30"',
    ],
    [[{ rule: 'label', expires: '2030-01-01' }], "body /config/ignore/0 must have required property 'reason'"],
  ];
  for (const [ignore, message] of ignoreCases) {
    const res = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/account`, config: { ignore } });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.message, message);
  }
  const hint = await h.call('POST', '/audit', { url: `${site.origin}/account`, auth: {} });
  assert.equal(
    hint.json().error.message,
    'body has an unknown property "auth"; did you mean "session" (POST /audit) or "config.session" (POST /api/v1/audits)?',
  );
});

test('every navigation of the steps meets the address guard: a form sent to a refused address fails the sign-in, naming the refusal', async () => {
  const hitsOnRefused: string[] = [];
  const refused = createServer((req, res) => {
    hitsOnRefused.push(req.url ?? '');
    res.end('should never be reached');
  });
  await new Promise<void>((resolve) => refused.listen(0, '127.0.0.2', resolve));
  const port = (refused.address() as AddressInfo).port;
  const elsewhere = await serveSignInSite({ loginAction: `http://127.0.0.2:${port}/login` });
  try {
    const res = await h.call('POST', '/audit', {
      url: `${elsewhere.origin}/account`,
      session: { steps: signInSteps(elsewhere.origin) },
    });
    assert.equal(res.statusCode, 500, res.body);
    assert.equal(
      res.json().error.message,
      `the audit failed: sign-in step 5 of 5 (waitForUrl /account) failed: the page did not reach a URL matching "/account" within 5 s; it is at http://127.0.0.2:${port}/login (refused: 127.0.0.2 is a loopback address)`,
    );
    assert.deepEqual(hitsOnRefused, []);
  } finally {
    await elsewhere.close();
    await new Promise((resolve) => refused.close(resolve));
  }
});

test("a session's headers go with every request to the audited origin and to no other, not even after a redirect there", async () => {
  const res = await h.call('POST', '/audit', {
    url: `${site.origin}/api-page`,
    session: { headers: [{ name: 'X-Api-Token', secret: 'API_TOKEN' }] },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().pages[0].title, 'API page');
  assert.ok(site.tokenSeenOn.includes('/api-page'));
  assert.ok(site.tokenSeenOn.includes('/avatar.png'), 'the page’s own image request carried it too');
  assert.ok(!res.body.includes(API_TOKEN));

  const other = await serveSignInSite();
  const redirecting = await serveSignInSite({ redirectTo: `${other.origin}/api-page` });
  try {
    const moved = await h.call('POST', '/audit', {
      url: `${redirecting.origin}/api-page`,
      session: { headers: [{ name: 'X-Api-Token', secret: 'API_TOKEN' }] },
    });
    assert.equal(moved.statusCode, 500, moved.body);
    assert.equal(moved.json().error.message, 'the audit failed: the page answered HTTP 401');
    assert.deepEqual(redirecting.tokenSeenOn, ['/api-page']);
    assert.ok(other.hits.includes('GET /api-page'), 'the redirect was followed');
    assert.deepEqual(other.tokenSeenOn, [], 'the other origin never saw the token');
  } finally {
    await other.close();
    await redirecting.close();
  }
});

test("a header's requests go through the audit's egress proxy: an address refused after the start check refuses them too", async () => {
  // A name whose address turns internal once checked (DNS rebinding): only the proxy's own check can catch it.
  const allowed = createAddressPolicy(['127.0.0.1']);
  let checks = 0;
  const rebinding: AddressPolicy = {
    checkUrl: (url) => allowed.checkUrl(url),
    async resolve(host) {
      if (checks++ === 0) return allowed.resolve(host);
      throw new RefusedDestinationError(host, 'refused: the name now resolves to an internal address');
    },
  };
  const host = new BrowserHost(h.app.log);
  const config = resolveConfig(
    { session: { headers: [{ name: 'X-Api-Token', secret: 'API_TOKEN' }] } },
    { defaultVersion: '2.2', defaultLevel: 'AA', maxDepth: 2, maxPages: 5 },
  );
  const before = site.hits.length;
  try {
    await assert.rejects(
      runAudit(
        `${site.origin}/api-page`,
        config,
        {
          host,
          policy: rebinding,
          timing: { timeoutMs: 5_000, networkIdleMs: 0, settleMs: 0 },
          pageConcurrency: 1,
          maxElementsPerRule: 100,
        },
        undefined,
        new Map([['API_TOKEN', API_TOKEN]]),
      ),
      { name: 'AuditFailedError', message: 'refused: the name now resolves to an internal address' },
    );
    assert.equal(site.hits.length, before, 'the site saw no request');
  } finally {
    await host.close();
  }
});

test("a header's request to a port nobody listens on fails the audit with the network error, as one without headers does", async () => {
  // Playwright's own fetch, which sends the headers, reaches a site through a tunnel of the egress proxy: the proxy's
  // answer to a tunnel it could not open must not come back as the site's HTTP 502.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const res = await h.call('POST', '/audit', {
    url: `http://127.0.0.1:${port}/`,
    session: { headers: [{ name: 'X-Api-Token', secret: 'API_TOKEN' }] },
  });
  assert.equal(res.statusCode, 500, res.body);
  assert.match(
    res.json().error.message,
    /^the audit failed: the page could not be loaded \(connection failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/,
  );
});
