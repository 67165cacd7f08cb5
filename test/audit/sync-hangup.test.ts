import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';

/**
 * A synchronous `POST /audit` whose client hangs up stops its audit: over a real socket (the app listens on a
 * port, the client is fetch with an AbortController), while the audited page is held open by the site, the
 * browser must drop that page and the instance's only synchronous slot must be free again.
 */

let h: AuditHarness;
let site: TestSite;
let base: string;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});

before(async () => {
  // One synchronous audit at a time: a slot still taken by the abandoned audit would answer 429.
  h = await startAudit({ AUDIT_CONCURRENCY: '0', AUDIT_MAX_SYNC_AUDITS: '1' }, 'audithangup');
  site = await serveSite({
    '/held': { body: page('Held', '<p>Never answered while the client waits.</p>'), holdUntil: held },
    '/clean': page('Clean', '<p>Fine.</p>'),
  });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});

after(async () => {
  release();
  await site?.close();
  await h?.close();
});

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{${labels}}`) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

function audit(url: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}/audit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
    signal,
  });
}

test('a client that hangs up stops its synchronous audit: the held page is dropped by the browser and the slot is free again', {
  timeout: 120_000,
}, async () => {
  const controller = new AbortController();
  const pending = audit(`${site.origin}/held`, controller.signal);
  pending.catch(() => {});
  await site.requested('/held');
  assert.equal(await metric('audit_running', ''), 1, 'the audit is running while the page is held');

  controller.abort();
  await assert.rejects(pending, { name: 'AbortError' });
  // The browser context is closed: the connection that waits for the held page is dropped, unanswered.
  await site.abandoned('/held');

  // The audit's own bookkeeping ends right after its context closed; the instance offers no push for it, so
  // its metrics (what an operator sees) are read until they say so, bounded by the test's timeout.
  while ((await metric('audit_running', '')) !== 0) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await metric('audit_sync_requests_total', 'outcome="abandoned"'), 1);
  assert.equal(await metric('audit_sync_requests_total', 'outcome="failed"'), 0, 'a hang-up is not an audit failure');

  // The only synchronous slot is free: the next audit runs (no 429) and completes.
  const next = await audit(`${site.origin}/clean`);
  assert.equal(next.status, 200, await next.clone().text());
  const result = (await next.json()) as { stats: { totalPages: number }; conformant: boolean };
  assert.equal(result.stats.totalPages, 1);
  assert.equal(result.conformant, true);
  assert.equal(await metric('audit_sync_requests_total', 'outcome="completed"'), 1);
  assert.equal(site.hits.filter((p) => p === '/held').length, 1, 'the abandoned page was not loaded again');
});
