import { mkdirSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';

const ARTIFACTS = new URL('../../test-artifacts/identity-mfa/', import.meta.url);

export { assertAccessible } from '../support/axe.ts';

/** A full-page screenshot under test-artifacts/identity-mfa/ (gitignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

export async function focusedId(page: Page): Promise<string> {
  return page.evaluate(
    'document.activeElement ? document.activeElement.id || document.activeElement.textContent : ""',
  ) as Promise<string>;
}

/**
 * A TOTP code the server has not seen yet: the current step, or the next one when the current step's code
 * was already used (the server accepts one step of drift, so that code is valid now).
 */
export function freshCode(secretBase32: string, lastStep: number): { code: string; step: number } {
  const step = Math.max(TOTP.counter({ period: 30 }), lastStep + 1);
  return {
    code: TOTP.generate({ secret: Secret.fromBase32(secretBase32), period: 30, timestamp: step * 30_000 }),
    step,
  };
}

/** The app's redirect URI: a real listener, so the browser's arrival there is the sign-in's result. */
export async function callbackServer(): Promise<{ url: string; arrivals: string[]; close(): void }> {
  const arrivals: string[] = [];
  let url = '';
  const server: HttpServer = createServer((req, res) => {
    arrivals.push(new URL(req.url ?? '/', url).href);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!DOCTYPE html><html lang="en"><title>done</title><h1>done</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, arrivals, close: () => server.close() };
}

/** An authorization request URL of a first-party confidential app (no consent page, no PKCE needed). */
export function authorizeUrl(issuer: string, clientId: string, redirectUri: string): string {
  const u = new URL('/oauth/authorize', issuer);
  u.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid email',
    state: Math.random().toString(36).slice(2),
    nonce: Math.random().toString(36).slice(2),
  }).toString();
  return u.href;
}
