import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { confirmEnrollment, pendingEnrollment } from '../../src/identity/mfa/totp.ts';
import { createHuman } from '../../src/identity/principals/store.ts';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser, field, formAction } from './browser.ts';
import { assertAccessible, focused, focusSettles, screenshot } from './a11y.ts';
import { authorizeUrl, callbackServer, freshCode } from './mfa-support.ts';
import { signInOnPage } from './account-support.ts';
import { startSmtp, type Mail } from './smtp-support.ts';
import { checkFrenchPage, frenchContext } from './french.ts';
import { fr } from '../../src/identity/web/i18n/fr.ts';

/** Codes mailed to a person (src/identity/email-codes/): sign-in without a password where an app allows it, verifying an address. */

const ADMIN_TOKEN = 'admin-token-for-the-email-codes-test-0123456789';
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let server: Server;
let browser: Browser;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let withCodes: { id: string; clientId: string };
let withoutCodes: { id: string; clientId: string };
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);
const codeIn = (mail: Mail) => /^Subject: Your (?:sign-in|verification) code: (\d{6})/m.exec(mail.text)![1]!;

before(async () => {
  smtp = await startSmtp();
  callback = await callbackServer();
  server = await startServer('idemailcodes', {
    IDENTITY_SMTP_URL: smtp.url,
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
    IDENTITY_PASSWORD_RESET_FREE_REQUESTS: '5',
  });
  const app = (name: string) =>
    server.registerApp({ name, appType: 'web', redirectUris: [callback.url], firstParty: true });
  withCodes = await app('Notes');
  withoutCodes = await app('Ledger');
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.close();
  callback?.close();
});

async function checkPage(page: Page, what: string): Promise<void> {
  await assertAccessible(page, what);
  await page.emulateMedia({ colorScheme: 'dark' });
  await assertAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok((width as number) <= 320, `${what}: no sideways scrolling at 320 px (${width})`);
}

test('the management API turns sign-in by emailed code on per app; a wrong value is a 400 in the error shape', async () => {
  const before = await api(`/applications/${withCodes.id}`);
  assert.equal(before.body.email_code_sign_in, false, 'off by default');
  const on = await api(`/applications/${withCodes.id}`, { method: 'PATCH', body: { email_code_sign_in: true } });
  assert.equal(on.status, 200, JSON.stringify(on.body));
  assert.equal(on.body.email_code_sign_in, true);
  const bad = await api(`/applications/${withCodes.id}`, { method: 'PATCH', body: { email_code_sign_in: 'yes' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
  assert.match(bad.body.error.message, /email_code_sign_in/);
  const openapi = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as any;
  assert.ok(JSON.stringify(openapi).includes('email_code_sign_in'), 'documented in OpenAPI');
});

test('in Chromium: "Email me a sign-in code", the code from the mail, and the app is signed in; the address counts as verified', async () => {
  const email = 'mona@example.com';
  const id = (await createHuman(server.runtime.db, { email, password: 'mona has a long password' })).id;
  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server.issuer, withCodes.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await checkPage(page, 'sign-in page with the code option');
  await screenshot(page, 'sign-in-with-code-option');
  await page.getByLabel('Email address').fill(email);
  // Keyboard: password, Sign in, then the code button.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Email me a sign-in code');
  const arrived = smtp.next();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Enter the code from your email' }).waitFor();
  assert.match((await page.getByRole('status').textContent())!, /If an account uses mona@example\.com/);
  await focusSettles(page, 'code');
  await checkPage(page, 'sign-in code page');
  await screenshot(page, 'sign-in-code');
  const mail = await arrived;
  assert.deepEqual(mail.to, [email]);
  const code = codeIn(mail);

  await page.getByLabel('Code from the email').fill(code === '000000' ? '111111' : '000000');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').waitFor();
  assert.match((await page.getByRole('alert').textContent())!, /This code is not right/);
  assert.equal(await page.getByLabel('Code from the email').getAttribute('aria-invalid'), 'true');
  await checkPage(page, 'sign-in code page with an error');

  await page.getByLabel('Code from the email').fill(code);
  await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.keyboard.press('Enter')]);
  assert.ok(new URL(page.url()).searchParams.get('code'), 'the app got its authorization code');
  const human = await server.runtime.db.query('SELECT email_verified_at FROM humans WHERE principal_id = $1', [id]);
  assert.ok(human.rows[0].email_verified_at, 'reading the mailbox verified the address');
  await context.close();
});

/** The sign-in page of an app in a test browser, and a post of "Email me a sign-in code" from it. */
async function askCode(clientId: string, email: string, b = new TestBrowser()) {
  const start = await b.follow(authorizeUrl(server.issuer, clientId, callback.url), callback.url);
  assert.match(start.html, /<h1>Sign in<\/h1>/);
  const uid = /\/interaction\/([^/"]+)\/login/.exec(start.html)![1]!;
  const res = await b.request(`${server.issuer}/interaction/${uid}/email-code`, {
    form: { csrf: field(start.html, 'csrf')!, email, password: '' },
  });
  return { b, uid, status: res.status, html: await res.text(), signIn: start.html };
}
async function sendCode(b: TestBrowser, page: string, email: string, code: string) {
  const res = await b.follow(new URL(formAction(page)!, server.issuer).href, callback.url, {
    form: { csrf: field(page, 'csrf')!, email, code },
  });
  return res;
}

test('no account enumeration: an unknown address gets the same page and no mail; any code is refused alike', async () => {
  await createHuman(server.runtime.db, { email: 'nils@example.com', password: 'nils has a long password' });
  const before = smtp.mails.length;
  const arrived = smtp.next();
  const unknown = await askCode(withCodes.clientId, 'nobody@example.com');
  const known = await askCode(withCodes.clientId, 'nils@example.com');
  assert.equal(unknown.status, 200);
  assert.equal(known.status, 200);
  const same = (html: string, email: string, uid: string) =>
    html
      .replaceAll(email, 'X')
      .replaceAll(uid, 'U')
      .replace(/name="csrf" value="[^"]*"/, '');
  assert.equal(same(unknown.html, 'nobody@example.com', unknown.uid), same(known.html, 'nils@example.com', known.uid));
  // Handled in order: once the known address's mail is here, the unknown one (asked first) was handled too.
  assert.deepEqual((await arrived).to, ['nils@example.com']);
  assert.equal(smtp.mails.length, before + 1, 'nothing was mailed for the unknown address');
  const guess = await sendCode(unknown.b, unknown.html, 'nobody@example.com', '123456');
  const wrong = await sendCode(
    known.b,
    known.html,
    'nils@example.com',
    '123456' === codeIn(smtp.mails.at(-1)!) ? '654321' : '123456',
  );
  assert.equal(guess.res.status, 400);
  assert.equal(wrong.res.status, 400);
  assert.equal(same(guess.html, 'nobody@example.com', unknown.uid), same(wrong.html, 'nils@example.com', known.uid));
});

test('an app without the setting offers no code; five wrong tries spend a code; a second factor is still asked', async () => {
  const off = await askCode(withoutCodes.clientId, 'nils@example.com');
  assert.doesNotMatch(off.signIn, /Email me a sign-in code/);
  assert.equal(off.status, 403);

  const email = 'otto@example.com';
  const id = (await createHuman(server.runtime.db, { email, password: 'otto has a long password' })).id;
  const arrived = smtp.next();
  const asked = await askCode(withCodes.clientId, email);
  const code = codeIn(await arrived);
  const other = code === '000000' ? '111111' : '000000';
  let page = asked.html;
  for (let i = 0; i < 5; i++) {
    const r = await sendCode(asked.b, page, email, other);
    assert.equal(r.res.status, 400);
    page = r.html;
  }
  const late = await sendCode(asked.b, page, email, code);
  assert.equal(late.res.status, 400, 'the right code after five wrong ones: spent');

  const { db, secretKey } = server.runtime;
  const pending = await pendingEnrollment(db, secretKey, id, email, 'localhost');
  assert.ok((await confirmEnrollment(db, secretKey, id, pending.credentialId, freshCode(pending.secret, -1).code)).ok);
  const next = smtp.next();
  const again = await askCode(withCodes.clientId, email);
  const fresh = await sendCode(again.b, again.html, email, codeIn(await next));
  assert.equal(fresh.res.status, 200);
  assert.match(fresh.html, /<h1>Two-step verification<\/h1>/, 'the code is the first step only');

  // Bad inputs: not six digits, a form from nowhere.
  const letters = await sendCode(again.b, again.html, email, 'abcdef');
  assert.equal(letters.res.status, 400);
  const noCsrf = await again.b.request(`${server.issuer}/interaction/${again.uid}/email-code/verify`, {
    form: { email, code: '123456' },
  });
  assert.equal(noCsrf.status, 403);
});

test('in Chromium: a signed-in person verifies their address with a mailed code', async () => {
  const email = 'vera@example.com';
  await createHuman(server.runtime.db, { email, password: 'vera has a long password' });
  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.issuer}/account/email`);
  await signInOnPage(page, { email, password: 'vera has a long password' });
  await page.getByRole('heading', { level: 1, name: 'Email address' }).waitFor();
  assert.match(await page.locator('main').innerText(), /Not verified yet/);
  await checkPage(page, 'email address page');
  await screenshot(page, 'email-address');
  const arrived = smtp.next();
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByLabel('Code from the email').waitFor();
  await focusSettles(page, 'code');
  await checkPage(page, 'email address page, code sent');
  await page.getByLabel('Code from the email').fill('12');
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), 'Enter the 6 digits of the code from the email.');
  await page.getByLabel('Code from the email').fill(codeIn(await arrived));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { level: 1, name: 'Email address verified' }).waitFor();
  await checkPage(page, 'email address verified');
  await screenshot(page, 'email-verified');
  const row = await server.runtime.db.query('SELECT email_verified_at FROM humans WHERE email = $1', [email]);
  assert.ok(row.rows[0].email_verified_at);
  await context.close();

  const anonymous = await fetch(`${server.issuer}/account/email/send`, { method: 'POST', redirect: 'manual' });
  assert.ok([401, 403].includes(anonymous.status), `signed out: refused (${anonymous.status})`);
});

/** The body's first line of a code mail: the code. */
const codeOf = (mail: Mail) => /\r?\n\r?\n(\d{6})\r?\n/.exec(mail.text)![1]!;

test('in Chromium with a French browser: the sign-in code page, its errors and its mail in French, accessible', async () => {
  const email = 'marcel@example.com';
  await createHuman(server.runtime.db, { email, password: 'marcel a un long mot de passe' });
  const context = await frenchContext(browser);
  const page = await context.newPage();
  await page.goto(authorizeUrl(server.issuer, withCodes.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByRole('button', { name: fr.signIn.emailCode }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), fr.emailCode.missingEmail);
  await page.getByLabel('Adresse e-mail').fill(email);
  const arrived = smtp.next();
  await page.getByRole('button', { name: fr.signIn.emailCode }).click();
  await page.getByRole('heading', { level: 1, name: 'Saisissez le code reçu par e-mail' }).waitFor();
  assert.equal(
    await page.getByRole('status').textContent(),
    'Si un compte utilise marcel@example.com, nous lui avons envoyé un code de connexion par e-mail.',
  );
  await checkFrenchPage(page, 'French sign-in code page');
  const mail = await arrived;
  assert.match(mail.text, /^Content-Language: fr\r?$/m);
  assert.match(
    mail.text,
    /Saisissez ce code pour vous connecter à votre compte sur [\w.:-]+\. Il fonctionne une fois, pendant 10\u00a0minutes\./,
  );
  assert.match(mail.text, /ignorez cet e-mail\u00a0: personne/);
  const code = codeOf(mail);
  await page.getByLabel('Code reçu par e-mail').fill('12');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), fr.email.sixDigits);
  assert.equal(await page.title(), 'Erreur\u00a0: Saisissez le code reçu par e-mail');
  await page.getByLabel('Code reçu par e-mail').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByText(fr.emailCode.wrongCode).waitFor();
  await checkFrenchPage(page, 'French sign-in code page with an error');
  await page.getByLabel('Code reçu par e-mail').fill(code);
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(callback.url)),
    page.getByRole('button', { name: 'Se connecter' }).click(),
  ]);
  await context.close();
});

test('in Chromium with a French browser: verifying the address, its errors and its mail in French; English stays English', async () => {
  const email = 'odile@example.com';
  await createHuman(server.runtime.db, { email, password: 'odile a un long mot de passe' });
  const context = await frenchContext(browser);
  const page = await context.newPage();
  await page.goto(`${server.issuer}/account/email`);
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel('Mot de passe').fill('odile a un long mot de passe');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Se connecter' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Adresse e-mail' }).waitFor();
  const arrived = smtp.next();
  await page.getByRole('button', { name: fr.email.sendCode }).click();
  await page.getByLabel('Code reçu par e-mail').fill('12');
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), fr.email.sixDigits);
  await checkFrenchPage(page, 'French email page with an error');
  const mail = await arrived;
  assert.match(mail.text, /^Content-Language: fr\r?$/m);
  assert.match(mail.text, /Saisissez ce code pour vérifier cette adresse e-mail/);
  await page.getByLabel('Code reçu par e-mail').fill(codeOf(mail));
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await page.getByRole('heading', { level: 1, name: 'Adresse e-mail vérifiée' }).waitFor();
  await context.close();

  const english = await fetch(`${server.issuer}/account/email/send`, {
    method: 'POST',
    headers: { 'accept-language': 'en-GB,en;q=0.9' },
  });
  assert.equal(english.status, 401);
  assert.match(await english.text(), /<html lang="en">[\s\S]*<h1>Signed out<\/h1>/);
});
