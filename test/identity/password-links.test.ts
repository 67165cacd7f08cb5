import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { redactUrl } from '../../src/kit/logger.ts';
import { createHumanWithSetupLink } from '../../src/identity/password-links/store.ts';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { assertAccessible, focused, focusSettles, screenshot } from './a11y.ts';
import { signInAt } from './account-support.ts';

/** The one-time "choose your password" link: the page, its form and the token's rules (src/identity/password-links/). */
let server: Server;
let browser: Browser;

before(async () => {
  server = await startServer('idpwlink');
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function made(
  email: string,
  options: { ttlSeconds?: number; continueTo?: string } = {},
): Promise<{ token: string; link: string }> {
  const r = await createHumanWithSetupLink(server.runtime.db, {
    email,
    name: `Name of ${email}`,
    ttlSeconds: options.ttlSeconds ?? 3600,
    continueTo: options.continueTo,
  });
  assert.equal(r.status, 'created');
  const token = (r as { token: string }).token;
  return { token, link: `${server.issuer}/account/choose-password?token=${token}` };
}
const human = async (email: string) =>
  (
    await server.runtime.db.query<{ principal_id: string; email_verified_at: string | null }>(
      'SELECT principal_id, email_verified_at FROM humans WHERE email = $1',
      [email],
    )
  ).rows[0];
const passwords = async (principalId: string) =>
  (
    await server.runtime.db.query<{ secret_hash: string; revoked: boolean }>(
      "SELECT secret_hash, revoked FROM credentials WHERE principal_id = $1 AND type = 'password'",
      [principalId],
    )
  ).rows;
/** The page and a post of its form from the same test browser (cookie-bound CSRF). */
async function opened(link: string): Promise<{ b: TestBrowser; csrf: string; token: string }> {
  const b = new TestBrowser();
  const page = await b.request(link);
  assert.equal(page.status, 200);
  const text = await page.text();
  return { b, csrf: field(text, 'csrf')!, token: field(text, 'token')! };
}
const post = (b: TestBrowser, form: Record<string, string>, headers: Record<string, string> = {}) =>
  b
    .request(`${server.issuer}/account/choose-password`, { form, headers })
    .then(async (r) => ({ status: r.status, html: await r.text() }));

test('in Chromium: the link shows the account, checks the two fields, sets the password, and the person signs in with it', async () => {
  const email = 'nina@example.com';
  const { token, link } = await made(email, { continueTo: 'http://dash.example.test/' });
  const before = await human(email);
  assert.equal(before!.email_verified_at, null, 'not verified before the link is used');
  assert.deepEqual(await passwords(before!.principal_id), [], 'no password before the link is used');
  // Only the SHA-256 of the 256-bit token is kept.
  assert.equal(Buffer.from(token, 'base64url').length, 32);
  const rows = (
    await server.runtime.db.query<{ token_hash: string; purpose: string; ttl: number }>(
      'SELECT token_hash, purpose, extract(epoch FROM expires_at - created_at)::int AS ttl FROM password_links WHERE principal_id = $1',
      [before!.principal_id],
    )
  ).rows;
  assert.deepEqual(rows, [
    { token_hash: createHash('sha256').update(token).digest('hex'), purpose: 'setup', ttl: 3600 },
  ]);

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  assert.equal(await page.title(), 'Choose your password');
  assert.equal(await page.locator('h1').textContent(), 'Choose your password');
  assert.match((await page.locator('main').textContent())!, /For the account nina@example\.com/);
  // autofocus is applied after the page is drawn: wait for it rather than read the focus in the moment after load.
  await focusSettles(page, 'new_password');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'confirm_password');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Set password');
  await assertAccessible(page, 'choose-password page');
  await screenshot(page, 'choose-password');

  await page.getByLabel('New password', { exact: true }).fill('short');
  await page.getByLabel('The new password again').fill('short');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForLoadState();
  assert.equal(await page.getByRole('alert').textContent(), 'The new password must be at least 12 characters.');
  assert.equal(await page.getByLabel('New password', { exact: true }).getAttribute('aria-invalid'), 'true');
  await focusSettles(page, 'new_password');

  await page.getByLabel('New password', { exact: true }).fill('nina has a long password');
  await page.getByLabel('The new password again').fill('nina has a long passwrod');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForLoadState();
  assert.equal(await page.getByRole('alert').textContent(), 'The two passwords differ: type the same password twice.');
  assert.equal(await page.getByLabel('The new password again').getAttribute('aria-invalid'), 'true');
  // The focus goes to the field to fix.
  await focusSettles(page, 'confirm_password');
  await assertAccessible(page, 'choose-password page with an error');
  await screenshot(page, 'choose-password-error');
  assert.deepEqual(await passwords(before!.principal_id), [], 'refused forms set nothing');

  await page.getByLabel('New password', { exact: true }).fill('nina has a long password');
  await page.getByLabel('The new password again').fill('nina has a long password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { level: 1, name: 'Password set' }).waitFor();
  assert.match((await page.getByRole('status').textContent())!, /nina@example\.com has its password/);
  assert.equal(
    await page.getByRole('link', { name: 'Sign in' }).getAttribute('href'),
    'http://dash.example.test/',
    'back to the app that made the link',
  );
  await assertAccessible(page, 'password set');

  const after = await human(email);
  assert.ok(after!.email_verified_at, 'the email is verified once the link is used');
  const creds = await passwords(after!.principal_id);
  assert.equal(creds.length, 1);
  assert.match(creds[0]!.secret_hash, /^\$?scrypt/, 'the same slow hash as every password');
  assert.ok(
    (await server.runtime.db.query('SELECT used_at FROM password_links WHERE principal_id = $1', [after!.principal_id]))
      .rows[0]!.used_at,
    'spent',
  );

  // The password signs in through the normal sign-in page.
  const signedIn = await signInAt(server.issuer, new TestBrowser(), '/account/password', {
    email,
    password: 'nina has a long password',
  });
  assert.equal(signedIn.url, `${server.issuer}/account/password`);
  assert.match(signedIn.html, /<h1>Change your password<\/h1>/);

  // Once only: the link again, in the browser and by a post of the old form.
  await page.goto(link);
  assert.equal(await page.locator('h1').textContent(), 'Link already used');
  await assertAccessible(page, 'used link page');
  const again = await fetch(link);
  assert.equal(again.status, 409);
  await context.close();
});

test('a second use, an expired, an unknown or a missing token gets its own page, never a 500; nothing is set', async () => {
  const { link, token } = await made('olaf@example.com');
  const { b, csrf } = await opened(link);
  const good = { token, csrf, new_password: 'olaf has a long password', confirm_password: 'olaf has a long password' };
  const [one, two] = await Promise.all([
    post(b, good),
    post(b, { ...good, new_password: 'olaf has another password', confirm_password: 'olaf has another password' }),
  ]);
  assert.deepEqual([one.status, two.status].sort(), [200, 409], 'two posts at once: exactly one sets the password');
  const replay = await post(b, good);
  assert.equal(replay.status, 409);
  assert.match(replay.html, /<h1>Link already used<\/h1>/);
  const olaf = await human('olaf@example.com');
  assert.equal((await passwords(olaf!.principal_id)).length, 1);

  const expiring = await made('pia@example.com');
  const opener = await opened(expiring.link);
  await server.runtime.db.query(
    "UPDATE password_links SET expires_at = now() - interval '1 second' WHERE token_hash = $1",
    [createHash('sha256').update(expiring.token).digest('hex')],
  );
  const expired = await fetch(expiring.link);
  assert.equal(expired.status, 410);
  assert.match(await expired.text(), /<h1>Link expired<\/h1>/);
  const late = await post(opener.b, {
    token: expiring.token,
    csrf: opener.csrf,
    new_password: 'pia has a long password',
    confirm_password: 'pia has a long password',
  });
  assert.equal(late.status, 410, 'a form opened before the expiry and sent after it');
  const pia = await human('pia@example.com');
  assert.deepEqual(await passwords(pia!.principal_id), []);
  assert.equal(pia!.email_verified_at, null);

  for (const t of [`${'x'.repeat(43)}`, '']) {
    const r = await fetch(`${server.issuer}/account/choose-password?token=${t}`);
    assert.equal(r.status, 404, `token ${JSON.stringify(t)}`);
    assert.match(await r.text(), /<h1>Link not found<\/h1>/);
  }
  assert.equal((await fetch(`${server.issuer}/account/choose-password`)).status, 404);
  assert.equal(
    (await fetch(`${server.issuer}/account/choose-password?token=${'x'.repeat(500)}`)).status,
    400,
    'an oversized token is a bad request, not a 500',
  );
  const page = await browser.newPage();
  await page.goto(expiring.link);
  await assertAccessible(page, 'expired link page');
  await page.goto(`${server.issuer}/account/choose-password?token=nothing`);
  await assertAccessible(page, 'unknown link page');
  await page.close();
});

test('the form refuses other origins and CSRF tokens of another browser or link', async () => {
  const { link, token } = await made('quin@example.com');
  const { b, csrf } = await opened(link);
  const form = { token, csrf, new_password: 'quin has a long password', confirm_password: 'quin has a long password' };
  assert.equal((await post(b, form, { origin: 'https://evil.example' })).status, 403, 'another origin');
  assert.equal((await post(b, form, { origin: 'null' })).status, 403, 'an opaque origin');
  assert.equal((await post(b, { ...form, csrf: 'forged' })).status, 403);
  assert.equal(
    (await post(new TestBrowser(), form)).status,
    403,
    'the CSRF token belongs to the browser that got the page',
  );
  const other = await made('rita@example.com');
  assert.equal((await post(b, { ...form, token: other.token })).status, 403, 'and to its link');
  const quin = await human('quin@example.com');
  assert.deepEqual(await passwords(quin!.principal_id), [], 'no refused post set anything');
  assert.equal((await post(b, form)).status, 200, 'the real form still works');
});

test('an email identity already has answers existing and changes nothing; the token is redacted from request logs', async () => {
  const id = await server.createHuman('sam@example.com', 'sam has a long password');
  const count = async () =>
    (await server.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM password_links')).rows[0]!.n;
  const links = await count();
  for (const email of ['sam@example.com', 'SAM@Example.com']) {
    assert.deepEqual(await createHumanWithSetupLink(server.runtime.db, { email, name: 'Sam again', ttlSeconds: 60 }), {
      status: 'existing',
    });
  }
  assert.equal(await count(), links, 'no link made');
  assert.equal((await passwords(id)).filter((p) => !p.revoked).length, 1, 'the password stays');
  // The request log writes the URL through redactUrl: the page's token is one of its redacted parameters.
  const { token } = await made('tess@example.com');
  const logged = redactUrl(`/account/choose-password?token=${token}`);
  assert.ok(!logged.includes(token));
  assert.equal(logged, '/account/choose-password?token=%5Bredacted%5D');
});
