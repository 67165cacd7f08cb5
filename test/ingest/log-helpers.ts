import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type pg from 'pg';
import type { App } from '../../src/kit/app.ts';
import { makeEvent } from './helpers.ts';

/** The log on, against `servers`, with short waits so redeliveries and refusals play out in seconds. */
export function logEnv(servers: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    INGEST_JETSTREAM_SERVERS: servers,
    INGEST_JETSTREAM_ACK_WAIT_SECONDS: '2',
    INGEST_COMMIT_TIMEOUT_SECONDS: '3',
    INGEST_RETRY_AFTER_SECONDS: '1',
    ...extra,
  };
}

/** Events of today, so they land in today's partition. */
export function events(projectId: string, n: number, prefix = ''): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) =>
    makeEvent(projectId, {
      event_id: `${prefix}${i}-${Math.random().toString(36).slice(2)}`,
      'event.timestamp': new Date().toISOString(),
    }),
  );
}

export function post(app: App, key: string, batch: Record<string, unknown>[]): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ events: batch }),
  });
}

/** Asserts the contract's answer to a refused batch: 503 UNAVAILABLE with Retry-After. */
export function assertRefused(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.json().error.code, 'UNAVAILABLE', res.body);
  assert.match(String(res.headers['retry-after']), /^\d+$/);
}

/** How many rows each of `ids` has in storage (absent: none). */
export async function storedCounts(sql: pg.Client, ids: string[]): Promise<Map<string, number>> {
  const { rows } = await sql.query(
    'SELECT event_id, count(*)::int AS n FROM ingest.events WHERE event_id = ANY($1) GROUP BY event_id',
    [ids],
  );
  return new Map(rows.map((r) => [r.event_id as string, r.n as number]));
}

/** Waits until every one of `ids` is stored, failing after `timeoutMs` with how many are missing. */
export async function waitStored(sql: pg.Client, ids: string[], timeoutMs = 60_000): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await storedCounts(sql, ids);
    if (counts.size === ids.length) return counts;
    if (Date.now() > deadline)
      assert.fail(`${ids.length - counts.size} of ${ids.length} acknowledged events not stored`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The value of an unlabelled metric from /metrics. */
export async function metricValue(app: App, name: string): Promise<number | undefined> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

/**
 * Waits until `/ready` counts no event left in the stream, failing after `timeoutMs` with the last count. The backlog is
 * read at most once a second, and an acknowledgement reaches every replica before the stream drops the event: seconds
 * under a loaded machine.
 */
export async function waitStreamEmptied(app: App, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = (await app.inject({ method: 'GET', url: '/ready' })).json().log?.pending_events;
    if (pending === 0) return;
    if (Date.now() > deadline) assert.fail(`${pending} events still in the stream after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
