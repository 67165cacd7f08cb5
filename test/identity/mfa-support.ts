import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ARTIFACTS = new URL('../../test-artifacts/identity-mfa/', import.meta.url);

/**
 * Runs axe-core in the page at WCAG 2.2 AA and fails with the rules broken. The source goes in through
 * the DevTools protocol (page.evaluate), which the page's CSP does not govern, so the policy stays on.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as { document: unknown; axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } };
    const result = await g.axe.run(g.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] } });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
  assert.deepEqual(violations, [], `${what}: axe found WCAG 2.2 AA violations`);
}

/** A full-page screenshot under test-artifacts/identity-mfa/ (gitignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

export async function focusedId(page: Page): Promise<string> {
  return page.evaluate('document.activeElement ? document.activeElement.id || document.activeElement.textContent : ""') as Promise<string>;
}

/**
 * A TOTP code the server has not seen yet: the current step, or the next one when the current step's code
 * was already used (the server accepts one step of drift, so that code is valid now).
 */
export function freshCode(secretBase32: string, lastStep: number): { code: string; step: number } {
  const step = Math.max(TOTP.counter({ period: 30 }), lastStep + 1);
  return { code: TOTP.generate({ secret: Secret.fromBase32(secretBase32), period: 30, timestamp: step * 30_000 }), step };
}

/** The app's redirect URI: a real listener, so the browser's arrival there is the sign-in's result. */
export async function callbackServer(): Promise<{ url: string; arrivals: string[]; close(): void }> {
  const arrivals: string[] = [];
  let url = '';
  const server: HttpServer = createServer((req, res) => {
    arrivals.push(new URL(req.url ?? '/', url).href);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><html lang="en"><title>done</title><h1>done</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, arrivals, close: () => server.close() };
}

/** An authorization request URL of a first-party confidential app (no consent page, no PKCE needed). */
export function authorizeUrl(issuer: string, clientId: string, redirectUri: string): string {
  const u = new URL('/oauth/authorize', issuer);
  u.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid email', state: Math.random().toString(36).slice(2), nonce: Math.random().toString(36).slice(2) }).toString();
  return u.href;
}
