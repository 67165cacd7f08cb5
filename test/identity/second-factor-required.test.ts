import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser, field, formAction } from './browser.ts';
import { codeFlow } from '../support/code-flow.ts';

/**
 * An application (or an organization) can require a second factor: a person without one is told to set one up instead
 * of being signed in, and a browser session signed in without a second step does not carry anyone into such an app.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PASSWORD = 'correct horse battery staple';
const CALLBACK = 'http://localhost:8765/callback';

describe('a second factor required per application', () => {
  let server: Server;
  let strict: { id: string; clientId: string };
  let relaxed: { clientId: string };
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );
  const authorize = (clientId: string) => {
    const url = new URL('/oauth/authorize', server.issuer);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return url.href;
  };

  before(async () => {
    server = await startServer('idmfarequired', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
    const spa = { appType: 'spa' as const, redirectUris: [CALLBACK], allowedScopes: ['openid'], firstParty: true };
    strict = await server.registerApp({ name: 'Payroll', ...spa });
    relaxed = await server.registerApp({ name: 'Wiki', ...spa });
    const set = await api(`/applications/${strict.id}`, { method: 'PATCH', body: { require_second_factor: true } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.require_second_factor, true);
    await server.createHuman('tom@acme.example', PASSWORD);
  });
  after(async () => server?.close());

  test('a person without a second factor is sent to set one up, and gets no code', async () => {
    const browser = new TestBrowser();
    const page = await browser.follow(authorize(strict.clientId), CALLBACK);
    assert.match(page.html, /<h1>Sign in<\/h1>/);
    const after = await browser.follow(new URL(formAction(page.html)!, server.issuer).href, CALLBACK, {
      form: { csrf: field(page.html, 'csrf')!, email: 'tom@acme.example', password: PASSWORD },
    });
    assert.equal(after.callback, undefined, 'no code reached the app');
    assert.match(after.html, /A second factor is needed/);
    assert.match(after.html, /href="[^"]*\/account\/security"/);
  });

  test('a session signed in without a second step is asked to sign in again for the strict app only', async () => {
    const browser = new TestBrowser();
    const wiki = await codeFlow(browser, {
      issuer: server.issuer,
      clientId: relaxed.clientId,
      redirectUri: CALLBACK,
      scope: 'openid',
      credentials: { email: 'tom@acme.example', password: PASSWORD },
    });
    assert.equal(wiki.status, 200, 'the relaxed app signs in with the password alone');
    const again = await browser.follow(authorize(relaxed.clientId), CALLBACK);
    assert.ok(again.callback, 'the session carries the person into the relaxed app');
    const strictStep = await browser.follow(authorize(strict.clientId), CALLBACK);
    assert.equal(strictStep.callback, undefined, 'but not into the strict one');
    assert.match(strictStep.html, /<h1>Sign in<\/h1>/);
  });

  test('organizations can require it too, and the flag is refused on a bad value', async () => {
    const org = await api('/organizations', { method: 'POST', body: { name: 'Acme', slug: 'acme' } });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const bad = await api(`/applications/${strict.id}`, { method: 'PATCH', body: { require_second_factor: 'yes' } });
    assert.equal(bad.status, 400);
  });
});
