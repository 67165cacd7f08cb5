import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { assertAccessible, focused, screenshot } from './a11y.ts';
import { assertPage, signInAt, signInOnPage } from './account-support.ts';

let server: Server;
let browser: Browser;
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

before(async () => {
  server = await startServer('idsessions');
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** A browser signed in over HTTP; its session row then says it came from `userAgent` (the test client sends none of its own). */
async function signedInBrowser(who: { email: string; password: string }, userAgent: string) {
  const b = new TestBrowser();
  const done = await signInAt(server.issuer, b, '/account/sessions', who);
  assert.equal(done.res.status, 200, done.html.slice(0, 300));
  const token = b.cookie('__Host-svc_login')!;
  await server.runtime.db.query(
    "UPDATE login_sessions SET user_agent = $2, client_ip = '203.0.113.7' WHERE token_hash = $1",
    [sha256(token), userAgent],
  );
  return {
    b,
    token,
    id: (
      await server.runtime.db.query<{ id: string }>('SELECT id FROM login_sessions WHERE token_hash = $1', [
        sha256(token),
      ])
    ).rows[0]!.id,
  };
}

/** Whether a browser's login session still opens an account page (else it is sent to sign in). */
async function stillSignedIn(b: TestBrowser): Promise<boolean> {
  const res = await b.request(`${server.issuer}/account/apps`);
  if (res.status === 200) return true;
  assert.equal(res.status, 303);
  assert.match(res.headers.get('location')!, /^\/signin\?/);
  return false;
}

test('the sessions page in Chromium: every live session, this browser marked, one signed out by keyboard and then every other; their cookies stop working', async () => {
  const who = { email: 'sam@example.com', password: 'sam has a long password' };
  await server.createHuman(who.email, who.password);
  const laptop = await signedInBrowser(who, FIREFOX);
  const phone = await signedInBrowser(who, IPHONE);
  await server.runtime.db.query('UPDATE login_sessions SET second_factor_at = now() WHERE id = $1', [phone.id]);

  for (const colorScheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ colorScheme });
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account/sessions`);
    await signInOnPage(page, who);
    await page.waitForURL(`${server.issuer}/account/sessions`);
    assert.equal(await page.locator('h1').textContent(), 'Sessions');
    await assertAccessible(page, `sessions page (${colorScheme})`);
    await screenshot(page, `sessions-${colorScheme}`);
    if (colorScheme === 'light') {
      // The session this context made is the first (newest), marked; the others read as their browsers.
      const items = page.locator('ul.sessions > li');
      assert.equal(await items.count(), 3);
      assert.match((await items.nth(0).locator('h2').textContent())!, /^Chrome \d+ on Linux This browser$/);
      assert.equal(
        await items.nth(0).getByRole('button').count(),
        0,
        'this browser is signed out on the sign-out page, not here',
      );
      assert.equal(await items.nth(1).locator('h2').textContent(), 'Safari 17 on iOS');
      assert.match((await items.nth(1).textContent())!, /From\s*203\.0\.113\.7[\s\S]*Second step\s*Yes/);
      assert.equal(await items.nth(2).locator('h2').textContent(), 'Firefox 128 on Windows');
      assert.match((await items.nth(2).textContent())!, /Second step\s*No/);
      // Nothing usable as a cookie is on the page: no session token, no token hash.
      const htmlText = await page.content();
      const context0 = (await context.cookies()).find((c) => c.name === '__Host-svc_login')!.value;
      for (const token of [laptop.token, phone.token, context0]) {
        assert.ok(
          !htmlText.includes(token) && !htmlText.includes(sha256(token)),
          'a session token or its hash is on the page',
        );
      }

      // Keyboard: the first control after the text is the phone's Sign out button; its focus is visible.
      for (let i = 0; i < 8 && !/^Sign out Safari/.test((await focused(page)) ?? ''); i++)
        await page.keyboard.press('Tab');
      assert.match((await focused(page))!, /^Sign out Safari 17 on iOS, signed in /);
      assert.equal(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'solid');
      await Promise.all([page.waitForURL(/done=ended/), page.keyboard.press('Enter')]);
      assert.equal(await page.getByRole('status').textContent(), 'That browser was signed out.');
      assert.equal(await page.locator('ul.sessions > li').count(), 2);
      assert.equal(await stillSignedIn(phone.b), false, "the phone's cookie no longer works");
      assert.equal(await stillSignedIn(laptop.b), true);
      await assertAccessible(page, 'sessions page after signing one out');

      // 320 px wide: no sideways scrolling.
      await page.setViewportSize({ width: 320, height: 800 });
      assert.equal(
        await page.evaluate('document.documentElement.scrollWidth <= 320'),
        true,
        'the page reflows at 320 px',
      );
      await screenshot(page, 'sessions-320');
      await page.setViewportSize({ width: 1280, height: 800 });

      await Promise.all([
        page.waitForURL(/done=others/),
        page.getByRole('button', { name: 'Sign out everywhere else' }).click(),
      ]);
      assert.equal(await page.getByRole('status').textContent(), 'Every other browser was signed out.');
      assert.equal(await stillSignedIn(laptop.b), false, "the laptop's cookie no longer works");
      assert.equal(
        await page.getByRole('button', { name: 'Sign out everywhere else' }).count(),
        0,
        'no other session is left to sign out',
      );
    }
    // This browser stays signed in.
    await page.reload();
    assert.equal(await page.locator('h1').textContent(), 'Sessions');
    await context.close();
  }
});

test('the sessions page refuses bad posts with a page: signed out, no or a foreign CSRF token, another origin, unknown, foreign, own and malformed ids', async () => {
  const ana = { email: 'ana@example.com', password: 'ana has a long password' };
  const bo = { email: 'bo@example.com', password: 'bo has a long password' };
  await server.createHuman(ana.email, ana.password);
  await server.createHuman(bo.email, bo.password);
  const mine = await signedInBrowser(ana, FIREFOX);
  const other = await signedInBrowser(ana, IPHONE);
  const bos = await signedInBrowser(bo, FIREFOX);
  const pageOf = async (b: TestBrowser) => (await b.request(`${server.issuer}/account/sessions`)).text();
  const csrf = field(await pageOf(mine.b), 'csrf')!;
  const end = (b: TestBrowser, id: string, form: Record<string, string>, headers?: Record<string, string>) =>
    b.request(`${server.issuer}/account/sessions/${id}/end`, { form, headers });

  const anonymous = new TestBrowser();
  const toSignIn = await anonymous.request(`${server.issuer}/account/sessions`);
  assert.equal(toSignIn.status, 303);
  assert.equal(toSignIn.headers.get('location'), '/signin?return_to=%2Faccount%2Fsessions');
  await assertPage(
    await end(anonymous, other.id, { csrf }),
    401,
    /<h1>Signed out<\/h1>[\s\S]*href="\/signin\?return_to=%2Faccount%2Fsessions"/,
  );
  await assertPage(
    await anonymous.request(`${server.issuer}/account/sessions/end-others`, { form: { csrf } }),
    401,
    /Signed out/,
  );
  await assertPage(await end(mine.b, other.id, {}), 403, /not sent from the sessions page/);
  await assertPage(await end(mine.b, other.id, { csrf: 'forged' }), 403, /Request refused/);
  await assertPage(
    await end(mine.b, other.id, { csrf: field(await pageOf(other.b), 'csrf')! }),
    403,
    /Request refused/,
  );
  await assertPage(await end(mine.b, other.id, { csrf }, { origin: 'https://evil.example' }), 403, /Request refused/);
  await assertPage(
    await mine.b.request(`${server.issuer}/account/sessions/end-others`, {
      form: { csrf },
      headers: { origin: 'null' },
    }),
    403,
    /Request refused/,
  );
  await assertPage(await end(mine.b, randomUUID(), { csrf }), 404, /Session not found/);
  await assertPage(await end(mine.b, bos.id, { csrf }), 404, /Session not found/);
  await assertPage(await end(mine.b, mine.id, { csrf }), 400, /sign-out page/);
  await assertPage(await end(mine.b, 'not-a-uuid', { csrf }), 400, /Request refused/);
  // None of those ended anything.
  for (const b of [mine.b, other.b, bos.b]) assert.equal(await stillSignedIn(b), true);

  // Everywhere else: only this person's other sessions.
  const all = await mine.b.request(`${server.issuer}/account/sessions/end-others`, { form: { csrf } });
  assert.equal(all.status, 303);
  assert.equal(all.headers.get('location'), '/account/sessions?done=others');
  assert.equal(await stillSignedIn(other.b), false);
  assert.equal(await stillSignedIn(bos.b), true, "someone else's session is untouched");
  assert.equal(await stillSignedIn(mine.b), true);
  const again = await mine.b.request(`${server.issuer}/account/sessions/end-others`, { form: { csrf } });
  assert.equal(again.headers.get('location'), '/account/sessions?done=none');
});
