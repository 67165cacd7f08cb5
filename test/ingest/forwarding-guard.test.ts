import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomToken, seal } from '../../src/kit/crypto.ts';
import { ingestService } from '../../src/ingest/service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/vendors/webhook.ts';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import {
  createDestination,
  deadLetters,
  FAST_FORWARDING,
  LOCAL_RECEIVERS,
  sendEvents,
  waitFor,
} from './forwarding-helpers.ts';

/**
 * Forwarding sends events to URLs an admin names, so it is guarded against the internal network
 * (src/ingest/forwarding/guard.ts, src/kit/outbound/): such a URL is refused when given, and a row that holds one
 * anyway (written to the database directly, or a name that resolves elsewhere since) is never reached at delivery.
 * Only loopback receivers are ever listened on here; the other internal addresses are refused before any connection.
 */
const SECRET_KEY = 'e'.repeat(64);
const SECRET = 'whsec_guard_0123456789abcdef';
const { INGEST_DESTINATION_ALLOW_HOSTS: _, ...GUARDED } = FAST_FORWARDING;

let h: IngestHarness;
let r: WebhookReceiver;

before(async () => {
  h = await startIngest({ ...GUARDED, PLATFORM_SECRET_KEY: SECRET_KEY }, 'fwdguard');
  r = await startWebhookReceiver(SECRET);
});
after(async () => {
  await r?.close();
  await h?.close();
});

const port = () => new URL(r.url).port;
const internal = () =>
  [
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address, where a cloud metadata/],
    ['http://10.1.2.3/hook', /10\.1\.2\.3 is a private address/],
    ['http://192.168.0.10:8080/hook', /is a private address/],
    [`http://127.0.0.1:${port()}/`, /127\.0\.0\.1 is a loopback address/],
    ['http://[::1]:8080/hook', /::1 is a loopback address/],
    [`http://[::ffff:127.0.0.1]:${port()}/`, /IPv4 127\.0\.0\.1\) is a loopback address/],
    [`http://localhost:${port()}/`, /localhost resolves to .* loopback address/],
  ] as const;

function assertRefused(res: { statusCode: number; json(): any }, reason: RegExp, what: string) {
  assert.equal(res.statusCode, 400, `${what}: ${JSON.stringify(res.json())}`);
  const { error } = res.json();
  assert.equal(error.code, 'VALIDATION_ERROR', what);
  assert.match(error.message, /^base_url: refused: /, what);
  assert.match(error.message, reason, what);
  assert.match(error.message, /INGEST_DESTINATION_ALLOW_HOSTS/, what);
}

test('a destination URL on the internal network is refused at creation, for webhooks and vendor kinds alike', async () => {
  const { projectId } = await h.project();
  const url = `/api/v1/projects/${projectId}/destinations`;
  for (const [base_url, reason] of internal()) {
    const res = await h.admin('POST', url, { name: 'inside', kind: 'webhook', base_url });
    assertRefused(res, reason, base_url);
  }
  // A self-hosted PostHog named by its URL goes through the same check.
  assertRefused(
    await h.admin('POST', url, {
      name: 'posthog',
      kind: 'posthog',
      base_url: 'http://169.254.169.254/',
      credentials: { api_key: 'phc_guard_test_key' },
    }),
    /cloud metadata/,
    'posthog',
  );
  const listed = await h.admin('GET', url);
  assert.deepEqual(listed.json().items, [], 'nothing was created');
  // A vendor's default public host is taken without a lookup; a name that does not resolve now is taken too.
  await createDestination(h, projectId, { name: 'default', kind: 'segment', credentials: { write_key: 'seg_guard' } });
  await createDestination(h, projectId, { name: 'later', kind: 'webhook', base_url: 'https://hooks.invalid/in' });
});

test('changing a URL to an internal one is refused and the old URL stays', async () => {
  const { projectId } = await h.project();
  const d = await createDestination(h, projectId, {
    name: 'hook',
    kind: 'webhook',
    base_url: 'https://hooks.invalid/a',
  });
  for (const [base_url, reason] of internal()) {
    assertRefused(await h.admin('PATCH', `/api/v1/destinations/${d.id}`, { base_url }), reason, base_url);
  }
  const got = await h.admin('GET', `/api/v1/destinations/${d.id}`);
  assert.equal(got.json().base_url, 'https://hooks.invalid/…');
});

test('the CLI refuses an internal URL as the API does', async () => {
  const { projectId } = await h.project();
  const env = {
    DATABASE_URL: h.database.url,
    DATA_DIR: '/nonexistent-unused',
    LOG_LEVEL: 'silent',
    PLATFORM_SECRET_KEY: SECRET_KEY,
  };
  const err: string[] = [];
  const code = await ingestService.load(env).command!(
    ['destinations', 'create', projectId, '--name', 'cli', '--kind', 'webhook', '--base-url', 'http://10.9.8.7/x'],
    { out: () => {}, err: (l) => err.push(l) },
  );
  assert.equal(code, 1);
  assert.match(err.join('\n'), /base_url: refused: 10\.9\.8\.7 is a private address/);
});

/** A webhook row written straight to the database, as an older version or a hand edit could leave it. */
async function insertDestination(projectId: string, url: string): Promise<string> {
  const id = `dst_${randomToken(12)}`;
  const credentials = seal(
    Buffer.from(SECRET_KEY, 'hex'),
    JSON.stringify({ secret: SECRET }),
    `ingest.destination:${id}`,
  );
  await h.sql.query(
    `INSERT INTO ingest.destinations (id, project_id, name, kind, base_url, credentials_sealed, credential_fields) VALUES ($1, $2, $3, 'webhook', $4, $5, '{secret}')`,
    [id, projectId, `direct-${id}`, url, credentials],
  );
  return id;
}

test('a destination on the internal network that got into the database is never reached: its events are dead-lettered saying why', async () => {
  const loopbacks = [
    [`http://127.0.0.1:${port()}/`, /127\.0\.0\.1 is a loopback address/],
    [`http://localhost:${port()}/`, /localhost resolves to .* loopback address/],
    [`http://[::ffff:127.0.0.1]:${port()}/`, /IPv4 127\.0\.0\.1\) is a loopback address/],
  ] as const;
  for (const [url, reason] of loopbacks) {
    const { projectId, key } = await h.project();
    const id = await insertDestination(projectId, url);
    const event = makeEvent(projectId);
    await sendEvents(h, key, [event]);
    const [letter] = await waitFor(`the dead letter of ${url}`, async () => {
      const letters = await deadLetters(h, id);
      return letters.length ? letters : undefined;
    });
    assert.equal(letter!.event_id, event.event_id);
    assert.equal(letter!.attempts, Number(FAST_FORWARDING.INGEST_FORWARDING_MAX_ATTEMPTS));
    assert.match(letter!.reason, /^not sent: refused: /, url);
    assert.match(letter!.reason, reason, url);
    assert.match(letter!.reason, /INGEST_DESTINATION_ALLOW_HOSTS/, url);

    // The console's test send says the same, answered 200, not an error of the service.
    const tested = await h.admin('POST', `/api/v1/destinations/${id}/test`);
    assert.equal(tested.statusCode, 200, tested.body);
    const result = tested.json();
    assert.equal(result.delivered, false);
    assert.equal(result.outcome, 'refused');
    assert.equal(result.status, null);
    assert.match(result.message, reason);
  }
  assert.equal(r.received.length, 0, 'the receiver on 127.0.0.1 saw no request');
});

test('INGEST_DESTINATION_ALLOW_HOSTS lets an operator deliver to an internal host', async () => {
  const allowed = await startIngest(
    { ...GUARDED, ...LOCAL_RECEIVERS, PLATFORM_SECRET_KEY: SECRET_KEY },
    'fwdguard-allowed',
  );
  const receiver = await startWebhookReceiver(SECRET);
  try {
    const { projectId, key } = await allowed.project();
    const d = await createDestination(allowed, projectId, {
      name: 'inside',
      kind: 'webhook',
      base_url: receiver.url,
      credentials: { secret: SECRET },
    });
    // Only what is named: the metadata address stays refused.
    assertRefused(
      await allowed.admin('PATCH', `/api/v1/destinations/${d.id}`, { base_url: 'http://169.254.169.254/' }),
      /cloud metadata/,
      'metadata',
    );
    const event = makeEvent(projectId);
    await sendEvents(allowed, key, [event]);
    await waitFor('the event delivered', () => receiver.arrivals.get(String(event.event_id)) === 1);
    const tested = await allowed.admin('POST', `/api/v1/destinations/${d.id}/test`);
    assert.equal(tested.json().delivered, true, tested.body);
  } finally {
    await receiver.close();
    await allowed.close();
  }
});

test('the OpenAPI document tells of the guard where URLs are given and what a test send answers', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const create = doc.paths['/api/v1/projects/{projectId}/destinations'].post;
  const body = create.requestBody.content['application/json'].schema;
  assert.match(body.properties.base_url.description, /internal address .*INGEST_DESTINATION_ALLOW_HOSTS/);
  const change = doc.paths['/api/v1/destinations/{destinationId}'].patch.requestBody.content['application/json'].schema;
  assert.match(change.properties.base_url.description, /Refused on the internal network/);
  const tested =
    doc.paths['/api/v1/destinations/{destinationId}/test'].post.responses['200'].content['application/json'];
  assert.ok(
    tested.schema.properties.outcome.enum.includes('refused'),
    JSON.stringify(tested.schema.properties.outcome),
  );
});
