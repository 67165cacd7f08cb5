import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { type TestBrowser, field, formAction } from './browser.ts';

/**
 * Signs in through identity's own account sign-in (`/signin?return_to=`), which is the normal sign-in page of an
 * authorization request, and follows the redirects back. Returns the last answer: the `returnTo` page when the
 * password was right, the sign-in page again (401) when not.
 */
export async function signInAt(
  issuer: string,
  browser: TestBrowser,
  returnTo: string,
  who: { email: string; password: string },
): Promise<{ url: string; res: Response; html: string }> {
  // prompt=login: a browser already signed in (as someone else) would otherwise go straight to returnTo.
  const page = await browser.follow(
    `${issuer}/signin?return_to=${encodeURIComponent(returnTo)}&prompt=login`,
    'about:never',
  );
  assert.match(page.html, /<h1>Sign in<\/h1>/, `the sign-in page was not shown: ${page.url} ${page.res.status}`);
  return browser.follow(new URL(formAction(page.html)!, issuer).href, 'about:never', {
    form: { csrf: field(page.html, 'csrf')!, email: who.email, password: who.password },
  });
}

/** Fills in and sends the sign-in page shown in Chromium. */
export async function signInOnPage(page: Page, who: { email: string; password: string }): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Email address').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    // The wrong passwords of earlier tests came from this same address (127.0.0.1), and on a loaded machine their
    // per-address wait can still hold (seen in CI): wait it out as a person would, then sign in again.
    const throttled = /Too many failed sign-in attempts\. Wait (\d+) seconds?/.exec(
      await page.locator('body').innerText(),
    );
    if (!throttled) return;
    assert.ok(attempt < 5, `still throttled after ${attempt} attempts: ${throttled[0]}`);
    await new Promise((resolve) => setTimeout(resolve, Number(throttled[1]) * 1000 + 250));
  }
}

/** An answer of an identity page: `status`, HTML (never the JSON error body), and `text` in it. */
export async function assertPage(res: Response, status: number, text: RegExp): Promise<void> {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  assert.match(await res.text(), text);
}
