import assert from 'node:assert/strict';
import type { IngestHarness } from './helpers.ts';

export { waitFor } from '../support/wait.ts';

/**
 * The receivers and vendor stand-ins of the tests listen on 127.0.0.1, which forwarding refuses by default (the guard
 * against the internal network): an operator's allow list lets them through.
 */
export const LOCAL_RECEIVERS: Record<string, string> = { INGEST_DESTINATION_ALLOW_HOSTS: '127.0.0.1' };

/**
 * Forwarding on, with short polls, timeouts and backoffs so failures and retries play out in milliseconds, to
 * receivers on 127.0.0.1 (LOCAL_RECEIVERS).
 */
export const FAST_FORWARDING: Record<string, string> = {
  ...LOCAL_RECEIVERS,
  INGEST_FORWARDING_ENABLED: 'true',
  INGEST_FORWARDING_POLL_MS: '20',
  INGEST_FORWARDING_TIMEOUT_MS: '500',
  INGEST_FORWARDING_LEASE_MS: '5000',
  INGEST_FORWARDING_RETRY_BASE_MS: '20',
  INGEST_FORWARDING_RETRY_MAX_MS: '100',
  INGEST_FORWARDING_MAX_ATTEMPTS: '3',
  INGEST_FORWARDING_DEAD_LETTER_AFTER_MS: '0',
};

export async function createDestination(
  h: IngestHarness,
  projectId: string,
  body: Record<string, unknown>,
): Promise<Record<string, any>> {
  const res = await h.admin('POST', `/api/v1/projects/${projectId}/destinations`, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function sendEvents(h: IngestHarness, key: string, events: Record<string, unknown>[]): Promise<void> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ events }),
  });
  assert.equal(res.statusCode, 202, res.body);
  assert.equal(res.json().accepted, events.length, res.body);
}

export async function deadLetters(h: IngestHarness, destinationId: string): Promise<Record<string, any>[]> {
  const res = await h.admin('GET', `/api/v1/destinations/${destinationId}/dead-letters`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().items;
}

export async function destination(h: IngestHarness, id: string): Promise<Record<string, any>> {
  const res = await h.admin('GET', `/api/v1/destinations/${id}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The value of one sample of a metric from /metrics, or undefined when absent. */
export async function metric(
  h: IngestHarness,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const text = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const [series, value] = line.split(/\s+/);
    if (want.every((w) => series!.includes(w))) return Number(value);
  }
  return undefined;
}
