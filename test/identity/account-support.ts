import assert from 'node:assert/strict';
import { TestBrowser, field, formAction } from './browser.ts';

/**
 * Signs in through identity's own account sign-in (`/signin?return_to=`), which is the normal sign-in page of an
 * authorization request, and follows the redirects back. Returns the last answer: the `returnTo` page when the
 * password was right, the sign-in page again (401) when not.
 */
export async function signInAt(issuer: string, browser: TestBrowser, returnTo: string, who: { email: string; password: string }): Promise<{ url: string; res: Response; html: string }> {
  const page = await browser.follow(`${issuer}/signin?return_to=${encodeURIComponent(returnTo)}`, 'about:never');
  assert.match(page.html, /<h1>Sign in<\/h1>/, `the sign-in page was not shown: ${page.url} ${page.res.status}`);
  return browser.follow(new URL(formAction(page.html)!, issuer).href, 'about:never', { form: { csrf: field(page.html, 'csrf')!, email: who.email, password: who.password } });
}
