import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { signInAt } from './account-support.ts';
import { freshCode } from './mfa-support.ts';
import { confirmEnrollment, pendingEnrollment } from '../../src/identity/mfa/totp.ts';

// The account and invitation pages sign in through the normal sign-in, so a person's second factor is asked
// there too: a password alone must not start a login session (which every app would then reuse).
let server: Server;
const dana = { email: 'dana@example.com', password: 'dana has a long password' };
let secret: string;
let danaId: string;

before(async () => {
  server = await startServer('idaccountmfa');
  const id = await server.createHuman(dana.email, dana.password);
  danaId = id;
  const { db, secretKey } = server.runtime;
  const pending = await pendingEnrollment(db, secretKey, id, dana.email, 'localhost');
  secret = pending.secret;
  assert.ok((await confirmEnrollment(db, secretKey, id, pending.credentialId, freshCode(secret, -1).code)).ok);
  await db.query("UPDATE credentials SET metadata = '{}'::jsonb WHERE principal_id = $1 AND type = 'totp'", [id]);
});
after(async () => server?.close());

test("the account pages' sign-in asks for the second factor after the password; only then is the person signed in", async () => {
  const b = new TestBrowser();
  const afterPassword = await signInAt(server.issuer, b, '/account/password', dana);
  assert.match(afterPassword.html, /<h1>Two-step verification<\/h1>/, 'the second step, not the account page');
  assert.equal(b.cookie('__Host-svc_login'), undefined, 'no login session from the password alone');
  const page = await b.request(`${server.issuer}/account/password`);
  assert.equal(page.status, 303, 'the account page still sends the browser to sign in');

  const action = new URL(/action="([^"]+\/mfa)"/.exec(afterPassword.html)![1]!, server.issuer).href;
  const done = await b.follow(action, 'about:never', {
    form: { csrf: field(afterPassword.html, 'csrf')!, code: freshCode(secret, -1).code },
  });
  assert.equal(done.url, `${server.issuer}/account/password`, 'the sign-in came back to the account page');
  assert.match(done.html, /<h1>Change your password<\/h1>/);
  assert.ok(b.cookie('__Host-svc_login'));
});

/** The TOTP steps used so far are forgotten, so each test can sign in with the current code (one use per step is tested in mfa.test.ts). */
const forgetSteps = () =>
  server.runtime.db.query("UPDATE credentials SET metadata = '{}'::jsonb WHERE principal_id = $1 AND type = 'totp'", [
    danaId,
  ]);

for (const path of ['/account/security', '/agents']) {
  test(`${path} signs in through /signin?return_to= with the second step, and comes back`, async () => {
    await forgetSteps();
    const b = new TestBrowser();
    const start = await b.request(`${server.issuer}${path}`);
    assert.equal(start.status, 303);
    assert.equal(start.headers.get('location'), `/signin?return_to=${encodeURIComponent(path)}`);
    const afterPassword = await signInAt(server.issuer, b, path, dana);
    assert.match(afterPassword.html, /<h1>Two-step verification<\/h1>/);
    assert.equal(b.cookie('__Host-svc_login'), undefined, 'no login session from the password alone');
    const action = new URL(/action="([^"]+\/mfa)"/.exec(afterPassword.html)![1]!, server.issuer).href;
    const done = await b.follow(action, 'about:never', {
      form: { csrf: field(afterPassword.html, 'csrf')!, code: freshCode(secret, -1).code },
    });
    assert.equal(done.url, `${server.issuer}${path}`, 'back at the page that asked');
    assert.equal(done.res.status, 200);
    assert.match(done.html, path === '/agents' ? /<h1>Agents acting for you<\/h1>/ : /An authenticator app is set up/);
  });
}
