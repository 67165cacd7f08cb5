import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { retryDelayMs } from '../../src/kit/outbound/backoff.ts';
import { retryAfterMs } from '../../src/ingest/forwarding/vendors/answers.ts';
import { mixpanelInsertId, uuidFor, uuidV5 } from '../../src/ingest/forwarding/vendors/event-fields.ts';
import { signWebhook, verifyWebhookSignature } from '../../src/ingest/forwarding/vendors/webhook.ts';
import { amplitudeAdapter } from '../../src/ingest/forwarding/vendors/amplitude.ts';
import { mixpanelAdapter } from '../../src/ingest/forwarding/vendors/mixpanel.ts';
import { vendorEndpoint } from '../../src/ingest/forwarding/vendors/endpoint.ts';
import { checkForwardingConfig, forwardingVariables } from '../../src/ingest/forwarding/config.ts';
import { readConfig, ConfigError } from '../../src/kit/config.ts';
import { documentedSignatureHolds } from '../support/vendors/webhook.ts';

test('backoff doubles per attempt within the upper half of its ceiling, capped, and never sooner than Retry-After', () => {
  const policy = { baseMs: 1000, maxMs: 60_000 };
  assert.equal(
    retryDelayMs(1, policy, undefined, () => 0),
    500,
  );
  assert.equal(
    retryDelayMs(1, policy, undefined, () => 1),
    1000,
  );
  assert.equal(
    retryDelayMs(4, policy, undefined, () => 1),
    8000,
  );
  assert.equal(
    retryDelayMs(4, policy, undefined, () => 0),
    4000,
  );
  assert.equal(
    retryDelayMs(30, policy, undefined, () => 1),
    60_000,
  );
  assert.equal(
    retryDelayMs(500, policy, undefined, () => 0.5),
    45_000,
  );
  assert.equal(
    retryDelayMs(1, policy, 30_000, () => 1),
    30_000,
  );
  assert.equal(
    retryDelayMs(6, policy, 100, () => 1),
    32_000,
  );
});

test('Retry-After is read as seconds or an HTTP date, capped at an hour, ignored when malformed', () => {
  const h = (v: string) => new Headers({ 'retry-after': v });
  assert.equal(retryAfterMs(h('7')), 7000);
  assert.equal(retryAfterMs(h('999999')), 3_600_000);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs(h('Thu, 01 Jan 2026 00:00:30 GMT'), now), 30_000);
  assert.equal(retryAfterMs(h('Wed, 31 Dec 2025 23:00:00 GMT'), now), 0);
  assert.equal(retryAfterMs(h('soon')), undefined);
  assert.equal(retryAfterMs(new Headers()), undefined);
});

/**
 * The worked example of docs/ingest.md ("Webhook signatures"), its v1 computed with openssl (`printf '%s' '<t>.<body>' |
 * openssl dgst -sha256 -hmac <secret>`), not with our code: the scheme is what receivers implement from the docs, so
 * the signer, the reference verifier and the test receiver are all held to it.
 */
const EXAMPLE = {
  secret: 'whsec_example_secret_0123456789',
  t: '1700000000',
  body: '{"events":[{"event_id":"e1","page.title":"Café ☕"}]}',
  v1: 'e77bbdb1d86532fba7176da3783bc58066961792f7463ab3f301db465f8dd3fa',
};
const EXAMPLE_HEADER = `t=${EXAMPLE.t},v1=${EXAMPLE.v1}`;

test('webhook signatures are HMAC-SHA256 over "<t>.<raw body>" as documented: the worked example, signed and checked', () => {
  // What the docs say, computed here with node:crypto over the body's UTF-8 bytes.
  const independent = createHmac('sha256', EXAMPLE.secret)
    .update(Buffer.from(`${EXAMPLE.t}.${EXAMPLE.body}`, 'utf8'))
    .digest('hex');
  assert.equal(independent, EXAMPLE.v1);
  assert.equal(signWebhook(EXAMPLE.secret, EXAMPLE.body, Number(EXAMPLE.t)), EXAMPLE_HEADER);
  const docs = readFileSync(new URL('../../docs/ingest.md', import.meta.url), 'utf8');
  for (const part of [EXAMPLE.secret, EXAMPLE.t, EXAMPLE.body, EXAMPLE.v1]) assert.ok(docs.includes(part), part);
});

test('the reference verifier and the test receiver accept the worked example and refuse it tampered, under another secret or too old', () => {
  const now = Number(EXAMPLE.t) + 100;
  const body = Buffer.from(EXAMPLE.body, 'utf8');
  const tampered = Buffer.from(EXAMPLE.body.replace('e1', 'e2'), 'utf8');
  assert.equal(verifyWebhookSignature(EXAMPLE.secret, EXAMPLE_HEADER, EXAMPLE.body, 300, now), true);
  assert.equal(documentedSignatureHolds(EXAMPLE.secret, EXAMPLE_HEADER, body, now), true);
  for (const [secret, header, raw, at, what] of [
    [EXAMPLE.secret, EXAMPLE_HEADER, tampered, now, 'another body'],
    ['whsec_other_secret_0123456789', EXAMPLE_HEADER, body, now, 'another secret'],
    [EXAMPLE.secret, EXAMPLE_HEADER, body, Number(EXAMPLE.t) + 301, 'more than 5 minutes later'],
    [EXAMPLE.secret, EXAMPLE_HEADER, body, Number(EXAMPLE.t) - 301, 'more than 5 minutes earlier'],
    [EXAMPLE.secret, undefined, body, now, 'no header'],
    [EXAMPLE.secret, `v1=${EXAMPLE.v1}`, body, now, 'no timestamp'],
    [EXAMPLE.secret, `t=${EXAMPLE.t},v1=${EXAMPLE.v1.replace(/^e/, 'f')}`, body, now, 'another MAC'],
  ] as const) {
    assert.equal(verifyWebhookSignature(secret, header, raw.toString('utf8'), 300, at), false, `reference: ${what}`);
    assert.equal(documentedSignatureHolds(secret, header, raw, at), false, `test receiver: ${what}`);
  }
});

test('vendor idempotency keys: UUIDs kept, other ids mapped deterministically (RFC 9562 v5), Mixpanel ids fitted to 36 characters', () => {
  assert.equal(
    uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
    '2ed6657d-e927-568b-95e1-2665a8aea6a2',
  );
  assert.equal(uuidFor('0F8FAD5B-D9CB-469F-A165-70867728950E'), '0f8fad5b-d9cb-469f-a165-70867728950e');
  assert.equal(uuidFor('order-1'), uuidFor('order-1'));
  assert.notEqual(uuidFor('order-1'), uuidFor('order-2'));
  assert.equal(mixpanelInsertId('abc-123'), 'abc-123');
  assert.match(mixpanelInsertId('has spaces and : colons'), /^[0-9a-f]{36}$/);
  assert.match(mixpanelInsertId('x'.repeat(37)), /^[0-9a-f]{36}$/);
});

test("answers with per-record failures are read by index; a bad API key is the destination's fault, not the payload's", () => {
  const answer = (status: number, body: unknown) => ({ status, headers: new Headers(), text: JSON.stringify(body) });
  const mp = mixpanelAdapter.interpret(
    answer(400, {
      code: 400,
      num_records_imported: 1,
      failed_records: [{ index: 1, insert_id: 'x', field: 'properties.time', message: 'bad time' }],
    }),
    2,
  );
  assert.deepEqual(mp, {
    kind: 'partial',
    failed: new Map([[1, 'mixpanel rejected the event: properties.time: bad time']]),
    othersDelivered: true,
  });
  const amp = amplitudeAdapter.interpret(
    answer(400, {
      code: 400,
      events_with_invalid_fields: { time: [0, 2] },
      events_with_missing_fields: { event_type: [1] },
    }),
    3,
  );
  assert.equal(amp.kind, 'partial');
  assert.deepEqual(amp.kind === 'partial' && [...amp.failed.keys()].sort(), [0, 1, 2]);
  assert.equal(amp.kind === 'partial' && amp.othersDelivered, false);
  assert.deepEqual(amplitudeAdapter.interpret(answer(400, { code: 400, error: 'Invalid API key: k' }), 1), {
    kind: 'rejected',
    reason: 'HTTP 400: Invalid API key: k',
    scope: 'destination',
  });
  const throttled = amplitudeAdapter.interpret(
    answer(429, { code: 429, error: 'Too many requests for some devices and users', throttled_events: [0] }),
    1,
  );
  // No Retry-After: the destination's configured backoff decides, not a fixed pause.
  assert.deepEqual(throttled, {
    kind: 'retry',
    reason: 'HTTP 429: Too many requests for some devices and users',
    retryAfterMs: undefined,
  });
  const told = amplitudeAdapter.interpret(
    { status: 429, headers: new Headers({ 'retry-after': '2' }), text: '{"code":429,"error":"Too many requests"}' },
    1,
  );
  assert.equal(told.kind === 'retry' && told.retryAfterMs, 2000);
  assert.equal(mixpanelAdapter.interpret(answer(408, {}), 1).kind, 'retry');
  assert.equal(mixpanelAdapter.interpret(answer(413, { error: 'too big' }), 1).kind, 'rejected');
});

test("a vendor's endpoint goes after the base_url's path and keeps its query; the vendor's own parameters win", () => {
  const at = (base: string, path: string) => vendorEndpoint(base, path).href;
  assert.equal(at('https://us.i.posthog.com', 'batch/'), 'https://us.i.posthog.com/batch/');
  assert.equal(at('https://ph.example.com/ingest', 'batch/'), 'https://ph.example.com/ingest/batch/');
  assert.equal(at('https://ph.example.com/ingest/', 'batch/'), 'https://ph.example.com/ingest/batch/');
  assert.equal(
    at('https://ph.example.com/ingest?token=a%2Fb', 'batch/'),
    'https://ph.example.com/ingest/batch/?token=a%2Fb',
  );
  assert.equal(
    at('https://proxy.example.com/seg/?route=eu', 'v1/batch'),
    'https://proxy.example.com/seg/v1/batch?route=eu',
  );
  const mixpanel = mixpanelAdapter.request(['{}'], {
    id: 'd',
    baseUrl: 'https://proxy.example.com/mp?strict=0&route=eu',
    settings: {},
    credentials: { project_token: 't' },
  });
  const url = new URL(mixpanel.url);
  assert.equal(url.pathname, '/mp/import');
  assert.deepEqual(
    [...url.searchParams],
    [
      ['strict', '1'],
      ['route', 'eu'],
    ],
  );
});

test("a base_url that already ends in the vendor's path is the endpoint, not a host to add it to", () => {
  const at = (base: string, path: string) => vendorEndpoint(base, path).href;
  assert.equal(at('https://api2.amplitude.com/2/httpapi', '2/httpapi'), 'https://api2.amplitude.com/2/httpapi');
  assert.equal(at('https://api.eu.amplitude.com/2/httpapi/', '2/httpapi'), 'https://api.eu.amplitude.com/2/httpapi');
  assert.equal(at('https://us.i.posthog.com/batch', 'batch/'), 'https://us.i.posthog.com/batch/');
  assert.equal(
    at('https://ph.example.com/ingest/batch/?token=t', 'batch/'),
    'https://ph.example.com/ingest/batch/?token=t',
  );
  assert.equal(at('https://api.segment.io/v1/batch', 'v1/batch'), 'https://api.segment.io/v1/batch');
  assert.equal(at('https://api.mixpanel.com/import?strict=1', 'import'), 'https://api.mixpanel.com/import?strict=1');
  // Only the whole path counts: a base ending in part of it, or in a segment that merely ends the same way, is a host.
  assert.equal(at('https://proxy.example.com/httpapi', '2/httpapi'), 'https://proxy.example.com/httpapi/2/httpapi');
  assert.equal(at('https://proxy.example.com/mybatch', 'v1/batch'), 'https://proxy.example.com/mybatch/v1/batch');
  assert.equal(at('https://proxy.example.com/v1', 'v1/batch'), 'https://proxy.example.com/v1/v1/batch');
});

test('forwarding variables: defaults, and a lease shorter than twice the timeout is refused naming the variable', () => {
  const defaults = readConfig(forwardingVariables, {});
  assert.equal(defaults.forwardingEnabled, false);
  assert.equal(defaults.forwardingMaxAttempts, 10);
  checkForwardingConfig(defaults);
  const bad = readConfig(forwardingVariables, {
    INGEST_FORWARDING_TIMEOUT_MS: '40000',
    INGEST_FORWARDING_LEASE_MS: '60000',
  });
  assert.throws(
    () => checkForwardingConfig(bad),
    (err: unknown) => err instanceof ConfigError && err.variable === 'INGEST_FORWARDING_LEASE_MS',
  );
  assert.throws(
    () => readConfig(forwardingVariables, { INGEST_FORWARDING_ENABLED: 'maybe' }),
    /INGEST_FORWARDING_ENABLED is malformed/,
  );
});
