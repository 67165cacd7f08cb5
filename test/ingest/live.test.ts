import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../src/kit/app.ts';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { localBus } from '../../src/ingest/live/bus.ts';
import { createLiveHub, MAX_PER_FLUSH } from '../../src/ingest/live/hub.ts';
import { refusedRequest } from '../../src/ingest/live/records.ts';
import { tempDir } from '../support/tmp.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/** Two instances of ingest on one database: a watcher on the first sees what the second accepts and refuses. */
let h: IngestHarness;
let second: App;
let first: string;
let other: string;
let projectId: string;
let key: string;
const dir = tempDir();

before(async () => {
  h = await startIngest({ INGEST_ALLOWED_ORIGINS: 'https://shop.example' }, 'ingestlive');
  second = await buildIngestApp(
    loadIngestConfig({
      DATABASE_URL: h.database.url,
      DATA_DIR: dir.path,
      LOG_LEVEL: 'silent',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
      INGEST_ALLOWED_ORIGINS: 'https://shop.example',
    }),
  );
  first = await h.app.listen({ host: '127.0.0.1', port: 0 });
  other = await second.listen({ host: '127.0.0.1', port: 0 });
  ({ projectId, key } = await h.project('live'));
});
after(async () => {
  await second?.close();
  await h?.close();
  dir.remove();
});

interface Sse {
  /** The next event of this kind (earlier events of other kinds are skipped). */
  next(kind: string): Promise<{ event: string; data: any }>;
  close(): void;
}

/** A stream read with fetch, as the console reads it (a bearer token in a header). */
async function stream(base: string, query = ''): Promise<Sse> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/v1/projects/${projectId}/live${query}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    signal: controller.signal,
  });
  assert.equal(res.status, 200);
  assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const queue: { event: string; data: any }[] = [];
  const read = async () => {
    for (;;) {
      const at = buffer.indexOf('\n\n');
      if (at >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event) return { event, data: data ? JSON.parse(data) : undefined };
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffer += value;
    }
  };
  const sse: Sse = {
    async next(kind) {
      for (;;) {
        const e = queue.shift() ?? (await read());
        if (e.event === kind) return e;
      }
    },
    close: () => controller.abort(),
  };
  await sse.next('ready');
  return sse;
}

const post = (base: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-api-key': key, ...headers },
    body,
  });

test('a watcher on one instance sees the events another accepts and rejects, with the reasons', async () => {
  const sse = await stream(first);
  try {
    const good = makeEvent(projectId, { event_id: 'live-1', 'user.id': 'ann', 'event.type': 'page.view' });
    const bad = { ...makeEvent(projectId, { event_id: 'live-2', 'user.id': 'bob' }), 'event.type': 'nonsense' };
    const res = await post(other, JSON.stringify({ events: [good, bad] }));
    assert.equal(res.status, 202);
    const accepted = await sse.next('accepted');
    assert.equal(accepted.data.event_id, 'live-1');
    assert.equal(accepted.data.type, 'page.view');
    assert.equal(accepted.data.user_id, 'ann');
    assert.deepEqual(accepted.data.body.metadata, { plan: 'pro' });
    const rejected = await sse.next('rejected');
    assert.equal(rejected.data.event_id, 'live-2');
    assert.equal(rejected.data.reason, 'event_type');
    assert.match(rejected.data.error, /event\.type/);
    assert.equal(rejected.data.index, 1);
    assert.equal(rejected.data.user_id, 'bob');

    // A whole request refused: a body that is not JSON (the key is good: tied to the project), then a wrong key.
    assert.equal((await post(other, '{"events": [')).status, 400);
    const broken = await sse.next('rejected');
    assert.equal(broken.data.reason, 'invalid_json');
    assert.equal(broken.data.project_id, projectId);
    assert.equal((await post(other, '{"events": []}', { 'x-svc-api-key': 'not-a-key' })).status, 401);
    const unknown = await sse.next('rejected');
    assert.equal(unknown.data.reason, 'unauthorized');
    assert.equal(unknown.data.project_id, null);
    // A preflight from an origin that may not send: no key, so shown to every watcher.
    const preflight = await fetch(`${other}/v1/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 403);
    const origin = await sse.next('rejected');
    assert.equal(origin.data.reason, 'origin_refused');
    assert.equal(origin.data.origin, 'https://evil.example');
  } finally {
    sse.close();
  }
});

test('filters by type, user and session on the server; rejected events only when asked', async () => {
  const byUser = await stream(other, '?user=carol&rejected=false');
  const byType = await stream(first, '?type=error');
  try {
    await post(
      first,
      JSON.stringify({
        events: [
          makeEvent(projectId, { event_id: 'f-1', 'user.id': 'dave' }),
          { ...makeEvent(projectId, { 'user.id': 'carol' }), 'event.timestamp': 'yesterday' },
          makeEvent(projectId, { event_id: 'f-2', 'user.id': 'carol', 'event.type': 'error' }),
        ],
      }),
    );
    assert.equal((await byUser.next('accepted')).data.event_id, 'f-2');
    assert.equal((await byType.next('accepted')).data.event_id, 'f-2');
    // The next thing each sees is the following batch's: nothing of the first slipped past the filters.
    await post(
      first,
      JSON.stringify({
        events: [makeEvent(projectId, { event_id: 'f-3', 'user.id': 'carol', 'event.type': 'error' })],
      }),
    );
    const [a, b] = await Promise.all([byUser.next('accepted'), byType.next('accepted')]);
    assert.equal(a.data.event_id, 'f-3');
    assert.equal(b.data.event_id, 'f-3');
  } finally {
    byUser.close();
    byType.close();
  }
});

test("internal=exclude leaves out the project's internal and test users, as listed when the stream opens", async () => {
  const list = (users: string[]) => h.admin('PUT', `/api/v1/projects/${projectId}/internal-users`, { users });
  assert.equal((await list(['ann-i', 'test-*'])).statusCode, 200);
  const hiding = await stream(other, '?internal=exclude');
  const all = await stream(first);
  try {
    await post(
      first,
      JSON.stringify({
        events: [
          makeEvent(projectId, { event_id: 'i-1', 'user.id': 'ann-i' }),
          makeEvent(projectId, { event_id: 'i-2', 'user.id': 'test-7' }),
          // An exact id is exact: another case is another user.
          makeEvent(projectId, { event_id: 'i-3', 'user.id': 'ANN-I' }),
          makeEvent(projectId, { event_id: 'i-4' }),
          { ...makeEvent(projectId, { event_id: 'i-5', 'user.id': 'test-8' }), 'event.type': 'nonsense' },
          makeEvent(projectId, { event_id: 'i-6', 'user.id': 'bob' }),
          { ...makeEvent(projectId, { event_id: 'i-7', 'user.id': 'bob' }), 'event.type': 'nonsense' },
        ],
      }),
    );
    const seen = async (sse: Sse, kind: string, n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push((await sse.next(kind)).data.event_id);
      return ids;
    };
    // Accepted and rejected alike: an internal user's refused event is theirs too; events without a user.id stay.
    assert.deepEqual(await seen(hiding, 'accepted', 3), ['i-3', 'i-4', 'i-6']);
    assert.deepEqual(await seen(hiding, 'rejected', 1), ['i-7']);
    assert.deepEqual(await seen(all, 'accepted', 5), ['i-1', 'i-2', 'i-3', 'i-4', 'i-6']);
    assert.deepEqual(await seen(all, 'rejected', 2), ['i-5', 'i-7']);
  } finally {
    hiding.close();
    all.close();
  }
  // A stream opened after the list changed leaves out the new list's users.
  assert.equal((await list(['bob'])).statusCode, 200);
  const again = await stream(first, '?internal=exclude');
  try {
    await post(
      other,
      JSON.stringify({
        events: [
          makeEvent(projectId, { event_id: 'i-8', 'user.id': 'bob' }),
          makeEvent(projectId, { event_id: 'i-9', 'user.id': 'ann-i' }),
        ],
      }),
    );
    assert.equal((await again.next('accepted')).data.event_id, 'i-9');
  } finally {
    again.close();
    assert.equal((await list([])).statusCode, 200);
  }
});

test('bad requests for a stream are answered in the error shape', async () => {
  const cases: [string, Record<string, string>, number, string][] = [
    [`/api/v1/projects/nope/live`, { authorization: `Bearer ${ADMIN_TOKEN}` }, 404, 'NOT_FOUND'],
    [
      `/api/v1/projects/${projectId}/live?rejected=perhaps`,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      400,
      'VALIDATION_ERROR',
    ],
    [
      `/api/v1/projects/${projectId}/live?internal=maybe`,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      400,
      'VALIDATION_ERROR',
    ],
    [
      `/api/v1/projects/${projectId}/live?colour=red`,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      400,
      'VALIDATION_ERROR',
    ],
    [`/api/v1/projects/${projectId}/live`, {}, 401, 'UNAUTHORIZED'],
  ];
  for (const [url, headers, status, code] of cases) {
    const res = await fetch(`${first}${url}`, { headers });
    assert.equal(res.status, status, url);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, code, url);
  }
});

test('nothing is sent on when nobody watches; beyond the rate events are counted as dropped, not queued', async () => {
  const delivered: string[] = [];
  const hub = createLiveHub({ bus: () => bus, log: h.app.log });
  const bus = localBus((m) => {
    delivered.push(m);
    hub.deliver(m);
  });
  try {
    hub.offer([refusedRequest('quiet', 'unauthorized', 'no', undefined, new Date())]);
    assert.equal(hub.watched('quiet'), false);
    const got: string[] = [];
    let sawDropped: () => void = () => {};
    const dropped = new Promise<void>((resolve) => {
      sawDropped = resolve;
    });
    const send = (event: string, data: string) => {
      got.push(`${event} ${data}`);
      if (event === 'dropped') sawDropped();
    };
    const ready = new Promise<void>((resolve) =>
      hub.watch({ projectId: 'busy', filter: { rejected: true }, send }, resolve),
    );
    await ready;
    assert.equal(delivered.length, 1, 'only the watch announcement');
    const records = Array.from({ length: MAX_PER_FLUSH + 25 }, () =>
      refusedRequest('busy', 'invalid_json', 'bad', undefined, new Date()),
    );
    hub.offer(records);
    await dropped;
    assert.equal(got.filter((g) => g.startsWith('rejected')).length, MAX_PER_FLUSH);
    assert.deepEqual(JSON.parse(got.find((g) => g.startsWith('dropped'))!.slice(8)), { count: 25 });
  } finally {
    await hub.close();
  }
});

test("an event an enforced tracking plan rejects is shown as rejected, with the plan's reason", async () => {
  const plan = await h.admin('PUT', `/api/v1/projects/${projectId}/tracking-plan`, {
    mode: 'enforce',
    events: [{ name: 'signed-up', properties: [{ name: 'metadata.plan', type: 'string', required: true }] }],
  });
  assert.equal(plan.statusCode, 200, plan.body);
  const sse = await stream(first);
  try {
    const event = makeEvent(projectId, {
      event_id: 'live-plan-1',
      'event.type': 'custom',
      'event.name': 'signed-up',
      metadata: {},
    });
    // Saved on this instance: its cache was told at once (another instance hears it through Redis, or its time to live).
    const res = await post(first, JSON.stringify({ events: [event] }));
    assert.deepEqual(await res.json(), {
      accepted: 0,
      rejected: 1,
      errors: [{ index: 0, error: 'metadata.plan: required by the tracking plan for signed-up' }],
    });
    const rejected = await sse.next('rejected');
    assert.equal(rejected.data.event_id, 'live-plan-1');
    assert.equal(rejected.data.reason, 'tracking_plan');
    assert.match(rejected.data.error, /tracking plan/);
  } finally {
    sse.close();
    await h.admin('PUT', `/api/v1/projects/${projectId}/tracking-plan`, { mode: 'off' });
  }
});
