import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

let h: IngestHarness;
let projectId: string;
let key: string;

before(async () => {
  h = await startIngest({ INGEST_ALLOWED_ORIGINS: 'https://app.example.com' }, 'events');
  ({ projectId, key } = await h.project());
});

after(async () => {
  await h.close();
});

const post = (payload: unknown, headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
  });

async function storedCount(): Promise<number> {
  return Number((await h.sql.query('SELECT count(*) AS n FROM ingest.events')).rows[0].n);
}

async function storedIds(ids: string[]): Promise<string[]> {
  return (
    await h.sql.query('SELECT event_id FROM ingest.events WHERE event_id = ANY($1) ORDER BY event_id', [ids])
  ).rows.map((r) => r.event_id);
}

function assertError(
  res: { statusCode: number; json(): any },
  status: number,
  code: string,
  ...rest: [RegExp?] | [string, RegExp?]
) {
  const [reason, message] = typeof rest[0] === 'string' ? [rest[0], rest[1]] : [undefined, rest[0]];
  assert.equal(res.statusCode, status);
  assert.equal(res.json().error.code, code);
  assert.equal(typeof res.json().error.message, 'string');
  if (reason) assert.equal(res.json().error.details?.reason, reason);
  if (message) assert.match(res.json().error.message, message);
}

test('a valid batch is answered 202 after it is stored, as received, beside its query columns', async () => {
  const events = [
    makeEvent(projectId, {
      'event.timestamp': '2025-03-04T12:00:00.250+02:00',
      'unknown.field': { kept: true },
      'session.id': 'S-9',
    }),
    makeEvent(projectId, { 'event.type': 'api.response', 'api.status_code': 503, 'api.duration_ms': 87 }),
  ];
  const res = await post({ events });
  assert.equal(res.statusCode, 202);
  assert.deepEqual(res.json(), { accepted: 2, rejected: 0, errors: [] });
  const { rows } = await h.sql.query(
    `SELECT project_id, event_id, event_type, event_ts, session_id, received_at, body FROM ingest.events WHERE event_id = $1`,
    [events[0]!.event_id],
  );
  assert.equal(rows.length, 1);
  const row = rows[0];
  assert.equal(row.project_id, projectId);
  assert.equal(row.event_type, 'ui.click');
  assert.equal(row.session_id, 'S-9');
  assert.equal(row.event_ts.toISOString(), '2025-03-04T10:00:00.250Z');
  assert.ok(Math.abs(row.received_at.getTime() - Date.now()) < 60_000);
  assert.deepEqual(row.body, events[0]);
  assert.deepEqual(
    await storedIds(events.map((e) => e.event_id as string)),
    events.map((e) => e.event_id as string).sort(),
  );
});

test('each event is judged on its own: rejected ones come back with index and "<field>: <reason>"', async () => {
  const good = makeEvent(projectId);
  const noType = makeEvent(projectId);
  delete noType['event.type'];
  const res = await post({
    events: [
      noType,
      good,
      makeEvent(projectId, { 'event.timestamp': 'last tuesday' }),
      makeEvent(projectId, { metadata: 'x' }),
    ],
  });
  assert.equal(res.statusCode, 202);
  assert.deepEqual(res.json(), {
    accepted: 1,
    rejected: 3,
    errors: [
      { index: 0, error: 'event.type: required' },
      { index: 2, error: 'event.timestamp: must be an ISO 8601 date-time with a time zone' },
      { index: 3, error: 'metadata: must be an object' },
    ],
  });
  assert.deepEqual(await storedIds([good.event_id as string, noType.event_id as string]), [good.event_id]);
});

test('every required field missing in turn, and wrong types, over HTTP', async () => {
  const fields = ['event_id', 'project_id', 'session.id', 'event.type', 'event.timestamp'];
  const events = fields.map((f) => {
    const e = makeEvent(projectId);
    delete e[f];
    return e;
  });
  events.push(
    makeEvent(projectId, { 'event.sequence': 'three' }),
    makeEvent(projectId, { 'user.id': 42 }),
    makeEvent(projectId, { event_id: 7 }),
  );
  const res = await post({ events });
  assert.equal(res.statusCode, 202);
  assert.equal(res.json().accepted, 0);
  assert.deepEqual(
    res.json().errors.map((e: { error: string }) => e.error),
    [
      ...fields.map((f) => `${f}: required`),
      'event.sequence: must be an integer',
      'user.id: must be a string',
      'event_id: must be a string',
    ],
  );
});

test('an event PostgreSQL could not store is rejected on its own, never a 500 for the whole request', async () => {
  const good = makeEvent(projectId);
  // A valid ISO 8601 text whose instant in UTC falls in the year 10000, beyond what the event_ts column holds.
  const late = makeEvent(projectId, { 'event.timestamp': '9999-12-31T23:59:59-23:59' });
  const res = await post({ events: [late, good] });
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual(res.json(), {
    accepted: 1,
    rejected: 1,
    errors: [{ index: 0, error: 'event.timestamp: must be an ISO 8601 date-time with a time zone' }],
  });
  assert.deepEqual(await storedIds([good.event_id as string, late.event_id as string]), [good.event_id]);
});

test('an event nested deeper than 64 levels is rejected on its own, not a 500', async () => {
  const good = makeEvent(projectId);
  const deep = makeEvent(projectId);
  const head = JSON.stringify(deep).slice(0, -1);
  // 100 levels within the field: deeper than an event may hold, within what the whole body may hold (128).
  const body = `{"events":[${head},"metadata":{"x":${'['.repeat(99)}${']'.repeat(99)}}},${JSON.stringify(good)}]}`;
  const res = await post(body);
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual(res.json(), {
    accepted: 1,
    rejected: 1,
    errors: [{ index: 0, error: 'metadata: must not be nested more than 64 levels deep' }],
  });
  assert.deepEqual(await storedIds([good.event_id as string, deep.event_id as string]), [good.event_id]);
});

test('a body over 1 MB nested more than 128 levels or holding more than a million values is refused whole before it is parsed; brackets inside strings do not count', async () => {
  const good = makeEvent(projectId);
  const head = JSON.stringify(makeEvent(projectId)).slice(0, -1);
  // Bodies over 1 MB are read before parsing (smaller ones cannot cost much; their deep events are rejected one by one).
  const padded = JSON.stringify(makeEvent(projectId, { 'error.stack': 'x'.repeat(1024 * 1024) }));
  for (const depth of [126, 5000, 1_000_000]) {
    const body = `{"events":[${head},"metadata":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}},${JSON.stringify(good)},${padded}]}`;
    assertError(await post(body), 400, 'VALIDATION_ERROR', 'too_deep', /more than 128 levels deep/);
  }
  assert.deepEqual(await storedIds([good.event_id as string]), []);
  const tooLarge = (index: number) => ({
    index,
    error: `event: must be at most 100 KB serialized (got ${Buffer.byteLength(padded)} bytes)`,
  });
  const brackets = makeEvent(projectId, { 'error.message': '['.repeat(500) + '\\"{'.repeat(100) });
  assert.deepEqual((await post(`{"events":[${JSON.stringify(brackets)},${padded}]}`)).json(), {
    accepted: 1,
    rejected: 1,
    errors: [tooLarge(1)],
  });
  // Millions of tiny values would cost hundreds of MB to parse: refused from the text too (commas in strings do not count).
  const wide = `{"events":[${head},"metadata":{"x":[${Array(1_000_001).fill('0').join(',')}]}}]}`;
  assertError(await post(wide), 400, 'VALIDATION_ERROR', 'too_many_values', /more than 1,000,000 JSON values/);
  const commas = JSON.stringify(makeEvent(projectId, { 'error.stack': ','.repeat(1_100_000) }));
  assert.deepEqual((await post(`{"events":[${JSON.stringify(good)},${commas}]}`)).json(), {
    accepted: 1,
    rejected: 1,
    errors: [{ index: 1, error: `event: must be at most 100 KB serialized (got ${Buffer.byteLength(commas)} bytes)` }],
  });
  // Unbalanced text is the parser's to judge.
  assertError(await post(`{"events":[${padded}${']'.repeat(200)}`), 400, 'VALIDATION_ERROR', 'invalid_json');
  // A small body as deep is parsed, and its too-deep event rejected on its own.
  const small = await post(
    `{"events":[${head},"metadata":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}},${JSON.stringify(good)}]}`,
  );
  assert.deepEqual(small.json(), {
    accepted: 1,
    rejected: 1,
    errors: [{ index: 0, error: 'metadata: must not be nested more than 64 levels deep' }],
  });
});

test('a duplicate id within one batch: the first is stored, the repeat rejected', async () => {
  const first = makeEvent(projectId);
  const repeat = { ...makeEvent(projectId), event_id: first.event_id };
  const res = await post({ events: [first, repeat] });
  assert.deepEqual(res.json(), {
    accepted: 1,
    rejected: 1,
    errors: [{ index: 1, error: 'event_id: repeated within the batch (first at index 0)' }],
  });
  const { rows } = await h.sql.query('SELECT body FROM ingest.events WHERE event_id = $1', [first.event_id]);
  assert.equal(rows.length, 1);
  assert.deepEqual(rows[0].body, first);
});

test('a re-sent batch counts as accepted and is stored once', async () => {
  const events = [makeEvent(projectId), makeEvent(projectId), makeEvent(projectId)];
  const before = await storedCount();
  const a = await post({ events });
  const b = await post({ events });
  assert.deepEqual(a.json(), { accepted: 3, rejected: 0, errors: [] });
  assert.deepEqual(b.json(), { accepted: 3, rejected: 0, errors: [] });
  // A retry mixing old and new events stores only the new one.
  const c = await post({ events: [...events, makeEvent(projectId)] });
  assert.deepEqual(c.json(), { accepted: 4, rejected: 0, errors: [] });
  assert.equal(await storedCount(), before + 4);
  const metrics = (await h.app.inject({ url: '/metrics' })).body;
  assert.match(metrics, /^ingest_events_duplicate_total [1-9]\d*$/m);
});

test('an event of another project is rejected; a key of another project cannot write into this one', async () => {
  const other = await h.project();
  const mine = makeEvent(projectId);
  const res = await post({ events: [mine, makeEvent(other.projectId)] }, { 'x-svc-api-key': other.key });
  assert.deepEqual(res.json(), {
    accepted: 1,
    rejected: 1,
    errors: [{ index: 0, error: 'project_id: does not match the project of the API key' }],
  });
  assert.deepEqual(await storedIds([mine.event_id as string]), []);
});

test('missing, unknown and revoked keys are 401 and store nothing', async () => {
  const p = await h.project();
  const second = await h.admin('POST', `/api/v1/projects/${p.projectId}/keys`, { name: 'rotation' });
  const secondKey = second.json().key as string;
  const event = makeEvent(p.projectId);

  const missing = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ events: [event] }),
  });
  assertError(missing, 401, 'UNAUTHORIZED', /X-Svc-API-Key/);
  assertError(
    await post({ events: [event] }, { 'x-svc-api-key': 'isk_not-a-real-key' }),
    401,
    'UNAUTHORIZED',
    /invalid or revoked/,
  );

  assert.equal((await post({ events: [makeEvent(p.projectId)] }, { 'x-svc-api-key': p.key })).statusCode, 202);
  const revoked = await h.admin('DELETE', `/api/v1/projects/${p.projectId}/keys/${p.keyId}`);
  assert.equal(revoked.statusCode, 200);
  assert.ok(revoked.json().revoked_at);
  assertError(await post({ events: [event] }, { 'x-svc-api-key': p.key }), 401, 'UNAUTHORIZED', /invalid or revoked/);
  assert.deepEqual(await storedIds([event.event_id as string]), []);
  // The project's other key keeps working: keys rotate without downtime.
  assert.equal((await post({ events: [event] }, { 'x-svc-api-key': secondKey })).statusCode, 202);
  assert.deepEqual(await storedIds([event.event_id as string]), [event.event_id]);
});

test('malformed JSON, a body that is not a batch, and an empty body are 400 with nothing stored', async () => {
  const before = await storedCount();
  assertError(await post('{"events": [ {"event_id": "x", '), 400, 'VALIDATION_ERROR', 'invalid_json', /not valid JSON/);
  assertError(
    await post(`{"events": [${JSON.stringify(makeEvent(projectId))}]} trailing`),
    400,
    'VALIDATION_ERROR',
    'invalid_json',
  );
  for (const notBatch of ['[]', '"events"', 'null', '{"events": {}}', '{"event": []}', '42']) {
    assertError(await post(notBatch), 400, 'VALIDATION_ERROR', 'invalid_batch', /"events" array/);
  }
  const empty = await h.app.inject({ method: 'POST', url: '/v1/events', headers: { 'x-svc-api-key': key } });
  assertError(empty, 400, 'VALIDATION_ERROR', 'invalid_batch');
  assertError(await post(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), 400, 'VALIDATION_ERROR', 'invalid_body', /UTF-8/);
  assert.equal(await storedCount(), before);
});

test('a wrong content type is 415 naming application/json', async () => {
  const body = JSON.stringify({ events: [makeEvent(projectId)] });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    assertError(await post(body, { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE', /application\/json/);
  }
  const untyped = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key },
    payload: Buffer.from(body),
  });
  assert.equal(untyped.statusCode, 415);
  assert.equal((await post(body, { 'content-type': 'application/json; charset=utf-8' })).statusCode, 202);
});

test('1,001 events is 400 and nothing of it is stored; 1,000 is accepted', async () => {
  const events = Array.from({ length: 1001 }, () => makeEvent(projectId));
  const before = await storedCount();
  assertError(await post({ events }), 400, 'VALIDATION_ERROR', 'batch_too_large', /at most 1,000 events \(got 1,001\)/);
  assert.equal(await storedCount(), before);
  const ok = await post({ events: events.slice(0, 1000) });
  assert.deepEqual(ok.json(), { accepted: 1000, rejected: 0, errors: [] });
  assert.equal(await storedCount(), before + 1000);
});

test('an 11 MB body is 400 and nothing of it is stored', async () => {
  const big = Array.from({ length: 110 }, () => makeEvent(projectId, { 'error.stack': 'x'.repeat(100_000) }));
  const body = JSON.stringify({ events: big });
  assert.ok(body.length > 11_000_000);
  const before = await storedCount();
  const res = await post(body);
  assertError(res, 400, 'VALIDATION_ERROR', 'batch_too_large', /exceeds 10 MB/);
  // Without Content-Length (chunked upload) the limit is counted while reading.
  const { Readable } = await import('node:stream');
  const chunked = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: Readable.from([Buffer.from(body.slice(0, 6_000_000)), Buffer.from(body.slice(6_000_000))]),
  });
  assertError(chunked, 400, 'VALIDATION_ERROR', 'batch_too_large', /exceeds 10 MB/);
  assert.equal(await storedCount(), before);
});

test('gzip bodies are accepted; the 10 MB limit applies after decompression; a bomb is refused', async () => {
  const events = [makeEvent(projectId), makeEvent(projectId)];
  const res = await post(gzipSync(JSON.stringify({ events })), { 'content-encoding': 'gzip' });
  assert.deepEqual(res.json(), { accepted: 2, rejected: 0, errors: [] });
  assert.equal((await storedIds(events.map((e) => e.event_id as string))).length, 2);

  // 50 MB of JSON whitespace inside a valid batch: about 50 KB compressed.
  const bomb = gzipSync(
    Buffer.concat([Buffer.from('{"events":['), Buffer.alloc(50 * 1024 * 1024, 0x20), Buffer.from(']}')]),
  );
  assert.ok(bomb.length < 200_000);
  const before = await storedCount();
  assertError(
    await post(bomb, { 'content-encoding': 'gzip' }),
    400,
    'VALIDATION_ERROR',
    'batch_too_large',
    /decompressed request body exceeds 10 MB/,
  );
  assertError(
    await post(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }),
    400,
    'VALIDATION_ERROR',
    'invalid_body',
    /not valid gzip/,
  );
  assertError(
    await post(JSON.stringify({ events }), { 'content-encoding': 'br' }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    /Content-Encoding br/,
  );
  assert.equal(await storedCount(), before);
});

test('any method but POST on /v1/events is 405 with Allow: POST, before the key is looked at', async () => {
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const) {
    const res = await h.app.inject({ method, url: '/v1/events' });
    assert.equal(res.statusCode, 405, method);
    assert.equal(res.headers.allow, 'POST', method);
    if (method !== 'HEAD') assertError(res, 405, 'METHOD_NOT_ALLOWED');
  }
});

test('a CORS preflight from an allowed origin is answered so browsers may send X-Svc-API-Key', async () => {
  const preflight = await h.app.inject({
    method: 'OPTIONS',
    url: '/v1/events',
    headers: {
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-svc-api-key',
    },
  });
  assert.equal(preflight.statusCode, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example.com');
  assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
  assert.match(String(preflight.headers['access-control-allow-headers']), /X-Svc-API-Key/i);
  assert.match(String(preflight.headers.vary), /Origin/);

  const stranger = await h.app.inject({
    method: 'OPTIONS',
    url: '/v1/events',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  });
  assertError(stranger, 403, 'FORBIDDEN');
  assert.equal(stranger.headers['access-control-allow-origin'], undefined);

  const actual = await post({ events: [makeEvent(projectId)] }, { origin: 'https://app.example.com' });
  assert.equal(actual.statusCode, 202);
  assert.equal(actual.headers['access-control-allow-origin'], 'https://app.example.com');
  const denied = await post({ events: [] }, { origin: 'https://app.example.com', 'x-svc-api-key': 'wrong' });
  assert.equal(denied.statusCode, 401);
  assert.equal(denied.headers['access-control-allow-origin'], 'https://app.example.com');
});

test('a preflight asking for tracing headers (W3C trace context, baggage, Sentry, Datadog) allows them, and never echoes a name that is not one', async () => {
  const asked = 'baggage, content-type, sentry-trace, traceparent, tracestate, x-datadog-trace-id, x-svc-api-key';
  const preflight = await h.app.inject({
    method: 'OPTIONS',
    url: '/v1/events',
    headers: {
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': `${asked}, bad name, x\u00e9`,
    },
  });
  assert.equal(preflight.statusCode, 204);
  const allowed = String(preflight.headers['access-control-allow-headers'])
    .toLowerCase()
    .split(/\s*,\s*/);
  for (const name of asked.split(', ')) assert.ok(allowed.includes(name), `${name} in ${allowed.join()}`);
  assert.equal(allowed.filter((h) => h === 'content-type').length, 1, 'each name once');
  assert.ok(!allowed.some((h) => h.includes('bad') || h.includes('\u00e9')), allowed.join());
  assert.match(String(preflight.headers.vary), /Access-Control-Request-Headers/);
  // Without a list asked for, the SDK's own headers are still allowed.
  const bare = await h.app.inject({
    method: 'OPTIONS',
    url: '/v1/events',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
  });
  assert.match(String(bare.headers['access-control-allow-headers']), /X-Svc-API-Key/);
});

test('an empty events array is accepted with nothing to store', async () => {
  assert.deepEqual((await post({ events: [] })).json(), { accepted: 0, rejected: 0, errors: [] });
});

test('/health, /ready and /metrics answer without credentials', async () => {
  assert.deepEqual((await h.app.inject({ url: '/health' })).json(), { status: 'ok' });
  assert.deepEqual((await h.app.inject({ url: '/ready' })).json(), { status: 'ready' });
  const metrics = await h.app.inject({ url: '/metrics' });
  assert.equal(metrics.statusCode, 200);
  assert.match(String(metrics.headers['content-type']), /text\/plain/);
  for (const name of [
    'ingest_events_accepted_total',
    'ingest_events_rejected_total{reason="required"}',
    'ingest_requests_rejected_total{reason="batch_too_large"}',
    'ingest_request_body_bytes_bucket',
    'ingest_commit_duration_seconds_bucket',
  ]) {
    assert.ok(metrics.body.includes(name), name);
  }
  const accepted = Number(/^ingest_events_accepted_total (\d+)$/m.exec(metrics.body)![1]);
  assert.ok(accepted >= 1000);
});

test("the OpenAPI document lists every status docs/ingest.md gives POST /v1/events, and the PATCH answer's one-time secret", async () => {
  const doc = (await h.app.inject({ url: '/openapi.json' })).json();
  assert.deepEqual(Object.keys(doc.paths['/v1/events'].post.responses).sort(), [
    '202',
    '400',
    '401',
    '405',
    '408',
    '415',
    '500',
    '503',
  ]);
  assert.ok(
    doc.paths['/api/v1/destinations/{destinationId}'].patch.responses['200'].content['application/json'].schema
      .properties.secret,
  );
});
