import assert from 'node:assert/strict';
import { type TestBrowser, field, formAction } from './browser.ts';

export const CALLBACK = 'http://localhost:8765/callback';

/**
 * Plays the user's part: opens the authorization URL, signs in on the service's page when asked, and
 * answers the consent page when shown. Returns the callback URL the browser was sent to.
 */
export async function authorizeInBrowser(
  issuer: string,
  browser: TestBrowser,
  authorizationUrl: string,
  credentials: { email: string; password: string } | undefined,
  consent: 'allow' | 'deny' | 'expect-none' = 'allow',
): Promise<{ callback: string; sawSignIn: boolean; sawConsent: boolean }> {
  let step = await browser.follow(authorizationUrl, CALLBACK);
  let sawSignIn = false;
  let sawConsent = false;
  if (!step.callback && step.html.includes('<h1>Sign in</h1>')) {
    assert.ok(credentials, 'the sign-in page was shown but no credentials were given');
    sawSignIn = true;
    step = await browser.follow(new URL(formAction(step.html)!, issuer).href, CALLBACK, {
      form: { csrf: field(step.html, 'csrf')!, email: credentials.email, password: credentials.password },
    });
  }
  if (!step.callback && step.html.includes('to access your account?</h1>')) {
    assert.notEqual(consent, 'expect-none', 'a consent page was shown where none was expected');
    sawConsent = true;
    step = await browser.follow(new URL(formAction(step.html)!, issuer).href, CALLBACK, {
      form: { csrf: field(step.html, 'csrf')!, decision: consent },
    });
  }
  assert.ok(
    step.callback,
    `the browser did not reach the callback; last page ${step.url} (${step.res.status}): ${step.html.slice(0, 400)}`,
  );
  return { callback: step.callback, sawSignIn, sawConsent };
}
