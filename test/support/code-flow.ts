import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { type TestBrowser, field, formAction } from '../identity/browser.ts';

export interface CodeFlow {
  issuer: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  /** Signs in on identity's page when it is shown; without, the flow must not need it. */
  credentials?: { email: string; password: string };
  prompt?: 'none';
  /** Sent as Origin to the token endpoint, as a browser's script does. */
  origin?: string;
}

/**
 * A public client's authorization code flow with PKCE, played in `browser` (its cookies are the person's session):
 * the callback's query (a code, or an error), then the token endpoint's answer for the code.
 */
export async function codeFlow(
  browser: TestBrowser,
  flow: CodeFlow,
): Promise<{ callback: URL; status?: number; tokens?: any; headers?: Headers }> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL('/oauth/authorize', flow.issuer);
  url.search = new URLSearchParams({
    client_id: flow.clientId,
    redirect_uri: flow.redirectUri,
    response_type: 'code',
    scope: flow.scope,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(flow.prompt ? { prompt: flow.prompt } : {}),
  }).toString();
  let step = await browser.follow(url.href, flow.redirectUri);
  if (!step.callback && step.html.includes('<h1>Sign in</h1>')) {
    assert.ok(flow.credentials, `the sign-in page was shown: ${step.url}`);
    step = await browser.follow(new URL(formAction(step.html)!, flow.issuer).href, flow.redirectUri, {
      form: { csrf: field(step.html, 'csrf')!, ...flow.credentials },
    });
  }
  assert.ok(step.callback, `the browser did not reach the callback: ${step.url} ${step.html.slice(0, 300)}`);
  const callback = new URL(step.callback);
  const code = callback.searchParams.get('code');
  if (!code) return { callback };
  const r = await fetch(new URL('/oauth/token', flow.issuer), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(flow.origin ? { origin: flow.origin } : {}),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: flow.redirectUri,
      client_id: flow.clientId,
      code_verifier: verifier,
    }),
  });
  return { callback, status: r.status, tokens: await r.json(), headers: r.headers };
}

/** A refresh at the token endpoint for a public client. */
export async function refreshTokens(
  issuer: string,
  clientId: string,
  refreshToken: string,
): Promise<{ status: number; tokens: any }> {
  const r = await fetch(new URL('/oauth/token', issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });
  return { status: r.status, tokens: await r.json() };
}
