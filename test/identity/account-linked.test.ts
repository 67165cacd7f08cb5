import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { createHuman } from '../../src/identity/principals/store.ts';
import { GitHubStandIn, GoogleStandIn } from '../support/vendors/social-login.ts';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { assertAccessible, focused, screenshot } from './a11y.ts';
import { assertPage, signInAt, signInOnPage } from './account-support.ts';

// GitHub and Google are played by local servers speaking their documented OAuth and OpenID Connect APIs.
let server: Server;
let browser: Browser;
const github = new GitHubStandIn('gh-client', 'gh-secret');
const google = new GoogleStandIn('google-client', 'google-secret');

before(async () => {
  await github.start();
  await google.start();
  server = await startServer('idlinked', {
    IDENTITY_GITHUB_CLIENT_ID: github.clientId,
    IDENTITY_GITHUB_CLIENT_SECRET: github.clientSecret,
    IDENTITY_GITHUB_URL: github.url,
    IDENTITY_GITHUB_API_URL: `${github.url}/api`,
    IDENTITY_GOOGLE_CLIENT_ID: google.clientId,
    IDENTITY_GOOGLE_CLIENT_SECRET: google.clientSecret,
    IDENTITY_GOOGLE_ISSUER: google.url,
  });
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await github.close();
  await google.close();
});

const links = async (principalId: string) =>
  (
    await server.runtime.db.query<{ provider: string; subject: string }>(
      'SELECT provider, subject FROM external_identities WHERE principal_id = $1 ORDER BY provider',
      [principalId],
    )
  ).rows.map((r) => `${r.provider}:${r.subject}`);
const linkedPage = (b: TestBrowser) => b.request(`${server.issuer}/account/linked`).then((r) => r.text());

/** "Link <provider>" from the linked accounts page over HTTP: the provider's redirect back, followed to the end. */
async function linkOver(b: TestBrowser, provider: 'github' | 'google', csrf?: string) {
  const start = await b.request(`${server.issuer}/account/linked/${provider}/link`, {
    form: { csrf: csrf ?? field(await linkedPage(b), 'csrf')! },
  });
  assert.equal(start.status, 303, await start.clone().text());
  const back = await b.request(start.headers.get('location')!);
  assert.equal(back.status, 302);
  return b.follow(back.headers.get('location')!, 'about:never');
}

/** A social sign-in from identity's own sign-in page, through the stand-in, back to `returnTo`. */
async function socialSignIn(b: TestBrowser, provider: 'github' | 'google', returnTo = '/account/linked') {
  const page = await b.follow(`${server.issuer}/signin?return_to=${encodeURIComponent(returnTo)}`, 'about:never');
  const form = new RegExp(
    `action="(/interaction/[^"]+/upstream/${provider})">\\s*<input type="hidden" name="csrf" value="([^"]+)"`,
  ).exec(page.html);
  assert.ok(form, 'the sign-in page offers the provider');
  return b.follow(new URL(form[1]!, server.issuer).href, 'about:never', { form: { csrf: form[2]! } });
}

test('linking GitHub in Chromium by keyboard, in light and dark: listed, then it signs the same person in; Google too', async () => {
  const lin = { email: 'lin@example.com', password: 'lin has a long password' };
  const linId = await server.createHuman(lin.email, lin.password);
  github.person = { id: 301, login: 'lin-gh', name: 'Lin', email: 'lin@elsewhere.example', verified: true };
  for (const colorScheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ colorScheme });
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account/linked`);
    await signInOnPage(page, lin);
    await page.waitForURL(`${server.issuer}/account/linked`);
    assert.equal(await page.locator('h1').textContent(), 'Linked accounts');
    await assertAccessible(page, `linked accounts page (${colorScheme})`);
    if (colorScheme === 'light') {
      assert.match((await page.locator('main').textContent())!, /No social account is linked/);
      await screenshot(page, 'linked-none');
      // Keyboard: Tab reaches "Link GitHub" with a visible focus; Enter goes to GitHub and back, linked.
      for (let i = 0; i < 6 && (await focused(page)) !== 'Link GitHub'; i++) await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'Link GitHub');
      assert.equal(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'solid');
      await Promise.all([page.waitForURL(`${server.issuer}/account/linked?done=linked`), page.keyboard.press('Enter')]);
      assert.equal(
        await page.getByRole('status').textContent(),
        'The account was linked. You can sign in with it from now on.',
      );
      assert.deepEqual(await links(linId), ['github:301']);
      const item = page.locator('ul.linked > li');
      assert.equal(await item.locator('h2').textContent(), 'GitHub');
      assert.match((await item.textContent())!, /lin@elsewhere\.example/);
      assert.equal(await page.getByRole('button', { name: 'Unlink GitHub (lin@elsewhere.example)' }).count(), 1);
      await assertAccessible(page, 'linked accounts page with GitHub');
      await screenshot(page, 'linked-github');
      await page.setViewportSize({ width: 320, height: 800 });
      assert.equal(
        await page.evaluate('document.documentElement.scrollWidth <= 320'),
        true,
        'the page reflows at 320 px',
      );
      await screenshot(page, 'linked-320');
    }
    await context.close();
  }

  // The link signs the person in (the GitHub email matches nothing here: only the link can find them).
  const b = new TestBrowser();
  const back = await socialSignIn(b, 'github');
  assert.equal(back.res.status, 200, back.html.slice(0, 300));
  assert.match(back.html, /Signed in as <strong>lin@example\.com<\/strong>/);
  // Google as well, over HTTP; linking it again says so and changes nothing.
  google.person = { id: 302, login: 'lin-g', name: 'Lin', email: 'lin@gmail.example', verified: true };
  assert.match((await linkOver(b, 'google')).url, /done=linked$/);
  assert.match((await linkOver(b, 'google')).url, /done=already$/);
  assert.deepEqual(await links(linId), ['github:301', 'google:302']);
});

test('an upstream account linked to someone else is refused with a page; so are a provider error and a changed or ended session', async () => {
  const kim = { email: 'kim@example.com', password: 'kim has a long password' };
  const lee = { email: 'lee@example.com', password: 'lee has a long password' };
  const kimId = await server.createHuman(kim.email, kim.password);
  const leeId = await server.createHuman(lee.email, lee.password);
  const kb = new TestBrowser();
  await signInAt(server.issuer, kb, '/account/linked', kim);
  github.person = { id: 401, login: 'kim-gh', name: 'Kim', email: 'kim@elsewhere.example', verified: true };
  await linkOver(kb, 'github');

  const lb = new TestBrowser();
  await signInAt(server.issuer, lb, '/account/linked', lee);
  const taken = await linkOver(lb, 'github');
  assert.equal(taken.res.status, 409);
  assert.match(
    taken.html,
    /<h1>Account linked to someone else<\/h1>[\s\S]*cannot be linked to yours[\s\S]*href="\/account\/linked"/,
  );
  assert.doesNotMatch(taken.html, /kim@/, 'the other account is not named');
  assert.deepEqual(await links(kimId), ['github:401']);
  assert.deepEqual(await links(leeId), []);

  // The person cancels at the provider.
  const start = await lb.request(`${server.issuer}/account/linked/github/link`, {
    form: { csrf: field(await linkedPage(lb), 'csrf')! },
  });
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
  const cancelled = await lb.request(`${server.issuer}/upstream/github/callback?error=access_denied&state=${state}`);
  assert.equal(cancelled.status, 400);
  assert.match(await cancelled.text(), /GitHub did not link[\s\S]*access_denied/);

  // Signed out (here, by the sessions page of another browser) between leaving and coming back: nothing is linked.
  github.person = { id: 402, login: 'lee-gh', name: 'Lee', email: 'lee@elsewhere.example', verified: true };
  const away = await lb.request(`${server.issuer}/account/linked/github/link`, {
    form: { csrf: field(await linkedPage(lb), 'csrf')! },
  });
  const callback = (await lb.request(away.headers.get('location')!)).headers.get('location')!;
  await server.runtime.db.query('DELETE FROM login_sessions WHERE principal_id = $1', [leeId]);
  const ended = await lb.request(callback);
  assert.equal(ended.status, 401);
  assert.match(await ended.text(), /<h1>Signed out<\/h1>[\s\S]*nothing was linked/);
  // Signed in as someone else meanwhile: refused too.
  await signInAt(server.issuer, lb, '/account/linked', lee);
  const away2 = await lb.request(`${server.issuer}/account/linked/github/link`, {
    form: { csrf: field(await linkedPage(lb), 'csrf')! },
  });
  const callback2 = (await lb.request(away2.headers.get('location')!)).headers.get('location')!;
  await signInAt(server.issuer, lb, '/account/linked', kim);
  const switched = await lb.request(callback2);
  assert.equal(switched.status, 403);
  assert.match(await switched.text(), /someone else than the person who started/);
  assert.deepEqual(await links(leeId), []);
  assert.deepEqual(await links(kimId), ['github:401']);
});

test('unlinking: refused for the last way to sign in of a person without a password, allowed while another remains', async () => {
  const niaId = (await createHuman(server.runtime.db, { email: 'nia@example.com', emailVerified: true })).id;
  const b = new TestBrowser();
  github.person = { id: 501, login: 'nia', name: 'Nia', email: 'nia@example.com', verified: true };
  const signed = await socialSignIn(b, 'github');
  assert.equal(signed.res.status, 200, signed.html.slice(0, 300));
  assert.deepEqual(await links(niaId), ['github:501'], 'the first sign-in linked by the verified email');
  const idOf = async (provider: string) =>
    (
      await server.runtime.db.query<{ id: string }>(
        'SELECT id FROM external_identities WHERE principal_id = $1 AND provider = $2',
        [niaId, provider],
      )
    ).rows[0]!.id;
  const unlink = async (id: string) =>
    b.request(`${server.issuer}/account/linked/${id}/unlink`, { form: { csrf: field(await linkedPage(b), 'csrf')! } });

  const last = await unlink(await idOf('github'));
  assert.equal(last.status, 409);
  assert.match(await last.text(), /role="alert"[^>]*>This account is your only way to sign in/);
  google.person = { id: 502, login: 'nia-g', name: 'Nia', email: 'nia@gmail.example', verified: true };
  await linkOver(b, 'google');
  const ok = await unlink(await idOf('github'));
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get('location'), '/account/linked?done=unlinked');
  assert.deepEqual(await links(niaId), ['google:502']);
  assert.equal((await unlink(await idOf('google'))).status, 409, 'Google is the last way now');
  // With a password, the last link may go.
  await server.runtime.db.query(
    "INSERT INTO credentials (principal_id, type, secret_hash, name) VALUES ($1, 'password', 'x', 'password')",
    [niaId],
  );
  assert.equal((await unlink(await idOf('google'))).status, 303);
  assert.deepEqual(await links(niaId), []);
});

test('the linked accounts page refuses bad requests with pages: signed out, bad or missing CSRF, another origin, unknown provider, unknown, foreign and malformed ids', async () => {
  const ona = { email: 'ona@example.com', password: 'ona has a long password' };
  const onaId = await server.createHuman(ona.email, ona.password);
  const kimLink = (
    await server.runtime.db.query<{ id: string }>(
      "SELECT id FROM external_identities WHERE provider = 'github' AND subject = '401'",
    )
  ).rows[0]!.id;
  const b = new TestBrowser();
  await signInAt(server.issuer, b, '/account/linked', ona);
  const csrf = field(await linkedPage(b), 'csrf')!;
  const anonymous = new TestBrowser();
  const toSignIn = await anonymous.request(`${server.issuer}/account/linked`);
  assert.equal(toSignIn.status, 303);
  assert.equal(toSignIn.headers.get('location'), '/signin?return_to=%2Faccount%2Flinked');
  await assertPage(
    await anonymous.request(`${server.issuer}/account/linked/github/link`, { form: { csrf } }),
    401,
    /Signed out/,
  );
  await assertPage(
    await b.request(`${server.issuer}/account/linked/github/link`, { form: {} }),
    403,
    /not sent from the linked accounts page/,
  );
  await assertPage(
    await b.request(`${server.issuer}/account/linked/github/link`, { form: { csrf: 'forged' } }),
    403,
    /Request refused/,
  );
  await assertPage(
    await b.request(`${server.issuer}/account/linked/github/link`, {
      form: { csrf },
      headers: { origin: 'https://evil.example' },
    }),
    403,
    /Request refused/,
  );
  await assertPage(
    await b.request(`${server.issuer}/account/linked/myspace/link`, { form: { csrf } }),
    404,
    /not configured here/,
  );
  await assertPage(
    await b.request(`${server.issuer}/account/linked/${randomUUID()}/unlink`, { form: { csrf } }),
    404,
    /Linked account not found/,
  );
  await assertPage(
    await b.request(`${server.issuer}/account/linked/${kimLink}/unlink`, { form: { csrf } }),
    404,
    /Linked account not found/,
  );
  await assertPage(
    await b.request(`${server.issuer}/account/linked/nope/unlink`, { form: { csrf } }),
    400,
    /Request refused/,
  );
  assert.equal(
    (await server.runtime.db.query('SELECT 1 FROM external_identities WHERE id = $1', [kimLink])).rowCount,
    1,
    "someone else's link stays",
  );
  assert.deepEqual(await links(onaId), []);
});
