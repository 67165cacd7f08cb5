import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { confirmEnrollment, pendingEnrollment } from '../../src/identity/mfa/totp.ts';
import { codeFlow, refreshTokens } from '../support/code-flow.ts';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { assertAccessible, focused, focusSettles, screenshot } from './a11y.ts';
import { freshCode } from './mfa-support.ts';
import { signInAt } from './account-support.ts';
import { startSmtp, type Mail } from './smtp-support.ts';
import { checkFrenchPage, frenchContext } from './french.ts';

/** "Forgot password" (src/identity/password-links/recovery*.ts): the page, the mail, the link, what a reset ends. */

let smtp: Awaited<ReturnType<typeof startSmtp>>;
const nextMail = () => smtp.next();
const linkIn = (mail: Mail) => /(http:\/\/\S+\/account\/choose-password\?token=[A-Za-z0-9_-]+)/.exec(mail.text)![1]!;

const CALLBACK = 'http://localhost:8765/callback';
let server: Server;
let browser: Browser;
let clientId: string;

before(async () => {
  smtp = await startSmtp();
  server = await startServer('idrecovery', {
    IDENTITY_SMTP_URL: smtp.url,
    IDENTITY_MAIL_FROM: 'accounts@platform.example',
    IDENTITY_PASSWORD_RESET_FREE_REQUESTS: '3',
  });
  clientId = (await server.registerApp({ name: 'Portal', appType: 'spa', redirectUris: [CALLBACK], firstParty: true }))
    .clientId;
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.close();
});

const authorizeUrl = () =>
  `${server.issuer}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 's1',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;

/** An app's sign-in (with a refresh token): the person's session in `b` and the tokens the app holds. */
async function appSignIn(email: string, password: string, b = new TestBrowser()) {
  const got = await codeFlow(b, {
    issuer: server.issuer,
    clientId,
    redirectUri: CALLBACK,
    scope: 'openid offline_access',
    credentials: { email, password },
  });
  assert.equal(got.status, 200, JSON.stringify(got.tokens));
  return { browser: b, tokens: got.tokens };
}

/** The forgot-password form posted from its page in a test browser (cookie-bound CSRF). */
async function ask(email: string, b = new TestBrowser(), extra: Record<string, string> = {}) {
  const form = await b.request(`${server.issuer}/account/forgot-password`);
  assert.equal(form.status, 200);
  const csrf = field(await form.text(), 'csrf')!;
  const res = await b.request(`${server.issuer}/account/forgot-password`, { form: { csrf, email, ...extra } });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

async function checkPage(page: Page, what: string): Promise<void> {
  await assertAccessible(page, what);
  await page.emulateMedia({ colorScheme: 'dark' });
  await assertAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok((width as number) <= 320, `${what}: no sideways scrolling at 320 px (${width})`);
}

test('in Chromium: from the sign-in page, a mailed one-time link sets a new password; every session and token ends', async () => {
  const email = 'rosa@example.com';
  await server.createHuman(email, 'rosa had an old password');
  // Signed in elsewhere before: a browser session, and an app holding a refresh token.
  const elsewhere = await appSignIn(email, 'rosa had an old password');

  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.goto(authorizeUrl());
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  const signInUrl = new URL(page.url());
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
  await focusSettles(page, 'email');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Send the link');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Back to sign in');
  assert.equal(await page.getByRole('link', { name: 'Back to sign in' }).getAttribute('href'), signInUrl.pathname);
  await checkPage(page, 'forgot-password page');
  await screenshot(page, 'forgot-password');

  // An empty field: the form again, saying what to fix, the field marked.
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), 'Enter your email address.');
  assert.equal(await page.getByLabel('Email address').getAttribute('aria-invalid'), 'true');
  await checkPage(page, 'forgot-password page with an error');

  const arrived = nextMail();
  await page.getByLabel('Email address').fill('Rosa@Example.com');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Check your email' }).waitFor();
  assert.match((await page.getByRole('status').textContent())!, /If an account uses rosa@example\.com/);
  await checkPage(page, 'check-your-email page');
  await screenshot(page, 'forgot-password-sent');
  await page.getByRole('link', { name: 'Back to sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  assert.equal(new URL(page.url()).pathname, signInUrl.pathname, 'back to the same sign-in request');

  const mail = await arrived;
  assert.deepEqual(mail.to, ['rosa@example.com']);
  assert.match(mail.text, /Subject: Choose a new password/);
  assert.match(mail.text, /The link works once, for 30 minutes/);
  const link = linkIn(mail);
  const stored = await server.runtime.db.query<{ purpose: string; ttl: number; token_hash: string }>(
    `SELECT l.purpose, extract(epoch FROM l.expires_at - l.created_at)::int AS ttl, l.token_hash
       FROM password_links l JOIN humans h ON h.principal_id = l.principal_id WHERE h.email = $1`,
    [email],
  );
  assert.equal(stored.rows.length, 1);
  assert.equal(stored.rows[0]!.purpose, 'reset');
  assert.equal(stored.rows[0]!.ttl, 1800, 'short-lived: IDENTITY_PASSWORD_RESET_TTL, 30 min by default');
  assert.ok(!link.includes(stored.rows[0]!.token_hash), 'only the hash is stored');

  await page.goto(link);
  await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
  await checkPage(page, 'choose-a-new-password page');
  await page.getByLabel('New password', { exact: true }).fill('rosa has a new password');
  await page.getByLabel('The new password again').fill('rosa has a new password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { level: 1, name: 'Password changed' }).waitFor();
  assert.match(
    (await page.getByRole('status').textContent())!,
    /Every session and app sign-in of the account has ended/,
  );
  await checkPage(page, 'password-changed page');
  await screenshot(page, 'password-changed');

  // Every session and token of the person ended: the app's refresh token is refused, the other browser must sign in.
  const refresh = await refreshTokens(server.issuer, clientId, elsewhere.tokens.refresh_token);
  assert.equal(refresh.status, 400);
  assert.equal(refresh.tokens.error, 'invalid_grant');
  assert.equal(await server.runtime.verifier(elsewhere.tokens.access_token), undefined);
  const silent = await codeFlow(elsewhere.browser, {
    issuer: server.issuer,
    clientId,
    redirectUri: CALLBACK,
    scope: 'openid',
    prompt: 'none',
  });
  assert.equal(silent.callback.searchParams.get('error'), 'login_required');

  // The old password no longer signs in; the new one does.
  const old = await signInAt(server.issuer, new TestBrowser(), '/account/password', {
    email,
    password: 'rosa had an old password',
  });
  assert.equal(old.res.status, 401);
  await appSignIn(email, 'rosa has a new password');

  // Once only.
  await page.goto(link);
  await page.getByRole('heading', { level: 1, name: 'Link already used' }).waitFor();
  assert.equal(
    await page.getByRole('link', { name: 'Ask for a new link' }).getAttribute('href'),
    '/account/forgot-password',
  );
  await checkPage(page, 'used reset link page');
  assert.equal((await fetch(link)).status, 409);
  await context.close();
});

test('in Chromium with a French browser: the reset mail is French, and so are the pages its link opens, accessible', async () => {
  const email = 'lucie@example.com';
  await server.createHuman(email, 'lucie avait un ancien mot de passe');
  const context = await frenchContext(browser);
  const page = await context.newPage();
  await page.goto(`${server.issuer}/account/forgot-password`);
  await page.getByLabel('Adresse e-mail').fill(email);
  const arrived = nextMail();
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Envoyer le lien' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Consultez vos e-mails' }).waitFor();
  const mail = await arrived;
  assert.match(mail.text, /^Content-Language: fr\r?$/m);
  assert.match(
    mail.text,
    /Quelqu’un a demandé à choisir un nouveau mot de passe pour le compte lucie@example\.com sur /,
  );
  assert.match(mail.text, /Choisir un nouveau mot de passe\u00a0: http/);
  assert.match(mail.text, /Le lien fonctionne une fois, pendant 30\u00a0minutes/);
  const link = linkIn(mail);

  await page.goto(link);
  await page.getByRole('heading', { level: 1, name: 'Choisissez un nouveau mot de passe' }).waitFor();
  await checkFrenchPage(page, 'French choose-password page');
  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill('court');
  await page.getByLabel('Le nouveau mot de passe, à nouveau').fill('court');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Définir le mot de passe' }).click()]);
  assert.match(
    (await page.getByRole('alert').textContent())!,
    /^Le nouveau mot de passe doit comporter au moins \d+\u00a0caractères\.$/,
  );
  await checkFrenchPage(page, 'French choose-password page with an error');
  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill('lucie a un nouveau mot de passe');
  await page.getByLabel('Le nouveau mot de passe, à nouveau').fill('lucie a un nouveau mot de passe');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Définir le mot de passe' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Mot de passe changé' }).waitFor();
  await checkFrenchPage(page, 'French password changed page');
  await page.goto(link);
  await page.getByRole('heading', { level: 1, name: 'Lien déjà utilisé' }).waitFor();
  await page.getByRole('link', { name: 'Demander un nouveau lien' }).waitFor();
  await checkFrenchPage(page, 'French used link page');
  await context.close();
});

test('no account enumeration: an unknown address gets the same answer, after the same work, and no mail', async () => {
  await server.createHuman('known@example.com', 'known has a long password');
  const db = server.runtime.db;
  const before = smtp.mails.length;
  const arrived = nextMail();
  // The answer comes before any look-up of the address: with the people table locked (no read of it can finish),
  // both addresses are answered, alike; the mail goes once the lock is released.
  const answers = await db.transaction(async (tx) => {
    await tx.query('LOCK TABLE humans IN ACCESS EXCLUSIVE MODE');
    return [await ask('nobody@example.com'), await ask('known@example.com')];
  });
  const [unknown, known] = answers as [Awaited<ReturnType<typeof ask>>, Awaited<ReturnType<typeof ask>>];
  assert.equal(unknown.status, 200);
  assert.equal(known.status, 200);
  assert.equal(unknown.html.replace('nobody@example.com', 'X'), known.html.replace('known@example.com', 'X'));
  // Handled in order: once the known address's mail is here, the unknown one (asked first) was looked up too.
  const mail = await arrived;
  assert.deepEqual(mail.to, ['known@example.com']);
  assert.equal(smtp.mails.length, before + 1, 'nothing was mailed for the unknown address');
  const rows = await db.query(
    `SELECT 1 FROM password_links l JOIN humans h ON h.principal_id = l.principal_id WHERE h.email = 'nobody@example.com'`,
  );
  assert.equal(rows.rows.length, 0);
});

test('a newer link replaces the older; an expired one is refused; a second factor is still asked after a reset', async () => {
  const email = 'tomas@example.com';
  const id = await server.createHuman(email, 'tomas had an old password');
  const { db, secretKey } = server.runtime;
  const pending = await pendingEnrollment(db, secretKey, id, email, 'localhost');
  assert.ok((await confirmEnrollment(db, secretKey, id, pending.credentialId, freshCode(pending.secret, -1).code)).ok);

  // Three requests for one address: the most IDENTITY_PASSWORD_RESET_FREE_REQUESTS (3 here) lets through at once.
  const asked = async () => assert.equal((await ask(email)).status, 200);
  const first = nextMail();
  await asked();
  const older = linkIn(await first);
  const second = nextMail();
  await asked();
  const newer = linkIn(await second);
  const replaced = await fetch(older);
  assert.equal(replaced.status, 410);
  assert.match(await replaced.text(), /<h1>Link replaced<\/h1>/);

  const b = new TestBrowser();
  const opened = await b.request(newer);
  const html = await opened.text();
  assert.match(html, /<h1>Choose a new password<\/h1>/);
  await db.query("UPDATE password_links SET expires_at = now() - interval '1 second' WHERE purpose = 'reset'");
  const late = await b.request(`${server.issuer}/account/choose-password`, {
    form: {
      token: field(html, 'token')!,
      csrf: field(html, 'csrf')!,
      new_password: 'tomas has a new password',
      confirm_password: 'tomas has a new password',
    },
  });
  assert.equal(late.status, 410);
  assert.match(await late.text(), /<h1>Link expired<\/h1>[\s\S]*Ask for a new link/);

  const third = nextMail();
  await asked();
  const fresh = await b.request(linkIn(await third));
  const form = await fresh.text();
  const set = await b.request(`${server.issuer}/account/choose-password`, {
    form: {
      token: field(form, 'token')!,
      csrf: field(form, 'csrf')!,
      new_password: 'tomas has a new password',
      confirm_password: 'tomas has a new password',
    },
  });
  assert.equal(set.status, 200);
  // The new password is only the first step: the authenticator app is still asked.
  const signIn = await signInAt(server.issuer, new TestBrowser(), '/account/password', {
    email,
    password: 'tomas has a new password',
  });
  assert.equal(signIn.res.status, 200);
  assert.match(signIn.html, /<h1>Two-step verification<\/h1>/);
});

test('bad inputs: a clear page each, never a 500; cross-site and CSRF-less posts refused', async () => {
  const b = new TestBrowser();
  const bad = await ask('not-an-address', b);
  assert.equal(bad.status, 400);
  assert.match(bad.html, /role="alert" id="form-error">Enter an email address like name@example\.com\.</);
  assert.match(bad.html, /value="not-an-address"/);
  const long = await ask(`${'a'.repeat(400)}@example.com`, b);
  assert.equal(long.status, 400);

  const noCsrf = await b.request(`${server.issuer}/account/forgot-password`, { form: { email: 'x@example.com' } });
  assert.equal(noCsrf.status, 403);
  assert.match(await noCsrf.text(), /<h1>Request refused<\/h1>/);
  const form = await b.request(`${server.issuer}/account/forgot-password`);
  const csrf = field(await form.text(), 'csrf')!;
  const crossSite = await b.request(`${server.issuer}/account/forgot-password`, {
    form: { csrf, email: 'x@example.com' },
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);

  // Where "Back to sign in" leads: only a sign-in request's page, else the account sign-in.
  const elsewhere = await fetch(
    `${server.issuer}/account/forgot-password?back=${encodeURIComponent('https://evil.example/')}`,
  );
  assert.equal(elsewhere.status, 200);
  assert.match(await elsewhere.text(), /href="\/signin\?return_to=%2Faccount%2Fpassword">Back to sign in/);
  const tooLong = await fetch(`${server.issuer}/account/forgot-password?back=${'x'.repeat(300)}`);
  assert.equal(tooLong.status, 400);
  assert.match(tooLong.headers.get('content-type')!, /^text\/html/);
  const nul = await ask('a\u0000b@example.com', b);
  assert.equal(nul.status, 400);
});

test('throttled per address asked for and per client: 429 with Retry-After, the same for an unknown address', async () => {
  for (const email of ['throttled@example.com', 'nobody-either@example.com']) {
    let answer = await ask(email);
    for (let i = 0; answer.status === 200 && i < 10; i++) answer = await ask(email);
    assert.equal(answer.status, 429, email);
    assert.ok(Number(answer.headers.get('retry-after')) >= 1);
    assert.match(answer.html, /Too many links asked for\. Wait \d+ seconds? and try again\./);
  }
  // Per client: many addresses from one client are slowed down too (IDENTITY_PASSWORD_RESET_FREE_REQUESTS × 10).
  let answer = { status: 200 } as Awaited<ReturnType<typeof ask>>;
  for (let i = 0; answer.status === 200 && i < 40; i++) answer = await ask(`client-${i}@example.com`);
  assert.equal(answer.status, 429);
});
