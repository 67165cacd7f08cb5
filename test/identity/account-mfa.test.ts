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

before(async () => {
  server = await startServer('idaccountmfa');
  const id = await server.createHuman(dana.email, dana.password);
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
  const done = await b.follow(action, 'about:never', { form: { csrf: field(afterPassword.html, 'csrf')!, code: freshCode(secret, -1).code } });
  assert.equal(done.url, `${server.issuer}/account/password`, 'the sign-in came back to the account page');
  assert.match(done.html, /<h1>Change your password<\/h1>/);
  assert.ok(b.cookie('__Host-svc_login'));
});
