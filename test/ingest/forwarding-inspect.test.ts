import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import { FAST_FORWARDING, createDestination, sendEvents, waitFor } from './forwarding-helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/vendors/webhook.ts';

/**
 * What the console reads of a destination beyond its settings (src/ingest/forwarding/inspect-routes.ts): its delivery
 * figures, a test send, one dead letter with its event; and a project's rename (src/ingest/admin/routes.ts).
 */
const SECRET = 'whsec_inspect_0123456789abcdef';
let h: IngestHarness;
// Each test its own project and receiver: every event goes to every enabled destination of its project, and a
// receiver's scripted faults are taken by whichever request comes first.
let r: WebhookReceiver;
let projectId: string;
let key: string;
const receivers: WebhookReceiver[] = [];

before(async () => {
  h = await startIngest({ ...FAST_FORWARDING, PLATFORM_SECRET_KEY: 'd'.repeat(64) }, 'fwdinspect');
});
beforeEach(async () => {
  ({ projectId, key } = await h.project());
  r = await startWebhookReceiver(SECRET);
  receivers.push(r);
});
after(async () => {
  for (const each of receivers) await each.close();
  await h?.close();
});

const webhook = (name: string, url = r.url) =>
  createDestination(h, projectId, { name, kind: 'webhook', base_url: url, credentials: { secret: SECRET } });
/** Attempts before an event is dead (FAST_FORWARDING: 3, no wait). */
const ATTEMPTS = Number(FAST_FORWARDING.INGEST_FORWARDING_MAX_ATTEMPTS);
const figures = async (id: string) => {
  const res = await h.admin('GET', `/api/v1/destinations/${id}/figures`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
function assertError(res: { statusCode: number; json(): any }, status: number, message: RegExp) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.match(res.json().error.message, message);
}

test('the new routes need the admin token', async () => {
  for (const [method, url] of [
    ['GET', '/api/v1/destinations/dst_x/figures'],
    ['POST', '/api/v1/destinations/dst_x/test'],
    ['GET', '/api/v1/destinations/dst_x/dead-letters/1'],
    ['PATCH', `/api/v1/projects/${projectId}`],
  ] as const) {
    const res = await h.app.inject({ method, url, payload: method === 'PATCH' ? { name: 'x' } : undefined });
    assert.equal(res.statusCode, 401, `${method} ${url}`);
    const wrong = await h.app.inject({ method, url, headers: { authorization: 'Bearer not-the-token-at-all' } });
    assert.equal(wrong.statusCode, 401, `${method} ${url} with a wrong token`);
  }
});

test('figures count delivered, waiting, retrying and dead events of a destination', async () => {
  const d = await webhook('figures');
  assert.deepEqual(await figures(d.id), {
    destination_id: d.id,
    delivered: 0,
    waiting: 0,
    retrying: 0,
    dead: 0,
    oldest_queued_at: null,
    last_error: null,
  });
  await sendEvents(h, key, [makeEvent(projectId), makeEvent(projectId)]);
  await waitFor('two delivered', async () => (await figures(d.id)).delivered === 2);
  // Refused for good (422, no retry helps): after the attempts it is dead; the error is the receiver's own words.
  r.fail({ status: 422, body: { error: 'unprocessable <script>' } }, ATTEMPTS);
  await sendEvents(h, key, [makeEvent(projectId)]);
  const dead = await waitFor('one dead', async () => {
    const f = await figures(d.id);
    return f.dead === 1 ? f : undefined;
  });
  assert.equal(dead.delivered, 2);
  assert.equal(dead.waiting + dead.retrying, 0);
});

test('a failing destination shows its events retrying with the last error, and nothing is counted delivered', async () => {
  const d = await webhook('retrying');
  const before = r.received.length;
  // Retry-After holds the event back a second: long enough to see it retrying, then it goes.
  r.fail({ status: 503, headers: { 'retry-after': '1' }, body: { error: 'down for maintenance' } }, 1);
  await sendEvents(h, key, [makeEvent(projectId)]);
  const f = await waitFor('retrying', async () => {
    const x = await figures(d.id);
    return x.retrying === 1 ? x : undefined;
  });
  assert.match(f.last_error, /^HTTP 503: .*down for maintenance/);
  assert.notEqual(f.oldest_queued_at, null);
  assert.equal(f.delivered, 0);
  await waitFor('delivered after the outage', async () => (await figures(d.id)).delivered === 1);
  assert.ok(r.received.length >= before + 2, 'tried, failed, tried again');
});

test('figures of an unknown destination: 404 in the error shape', async () => {
  assertError(await h.admin('GET', '/api/v1/destinations/dst_nope/figures'), 404, /no destination dst_nope/);
});

test('a test send reaches the destination signed, even paused, and queues or counts nothing', async () => {
  const d = await webhook('tested');
  await h.admin('PATCH', `/api/v1/destinations/${d.id}`, { enabled: false });
  const res = await h.admin('POST', `/api/v1/destinations/${d.id}/test`);
  assert.equal(res.statusCode, 200, res.body);
  const result = res.json();
  assert.equal(result.delivered, true);
  assert.equal(result.outcome, 'delivered');
  assert.equal(result.status, 204);
  const arrived = r.events.get(result.event_id);
  assert.ok(arrived, 'the receiver verified the signature and took it');
  assert.equal(arrived['event.type'], 'platform.test');
  assert.equal(arrived.project_id, projectId);
  const f = await figures(d.id);
  assert.equal(f.delivered + f.waiting + f.retrying + f.dead, 0);
  assert.equal(
    (await h.admin('POST', `/api/v1/destinations/${d.id}/test`, {})).statusCode,
    200,
    'an empty object is a body too',
  );
});

test('a test send says what a failing destination answered, its URL kept out of the message', async () => {
  const d = await webhook('broken', `${r.url}/hooks/secret-path-123`);
  r.fail({ status: 500, body: { error: 'boom at /hooks/secret-path-123' } }, 1);
  const failed = (await h.admin('POST', `/api/v1/destinations/${d.id}/test`)).json();
  assert.equal(failed.delivered, false);
  assert.equal(failed.outcome, 'retry');
  assert.equal(failed.status, 500);
  assert.match(failed.message, /^HTTP 500: /);
  assert.doesNotMatch(failed.message, /secret-path-123/);

  const wrongSecret = await createDestination(h, projectId, {
    name: 'wrong secret',
    kind: 'webhook',
    base_url: r.url,
    credentials: { secret: 'another-secret-of-16+' },
  });
  const refused = (await h.admin('POST', `/api/v1/destinations/${wrongSecret.id}/test`)).json();
  assert.deepEqual([refused.delivered, refused.outcome, refused.status], [false, 'rejected', 401]);

  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const gone = await webhook('nobody listens', `http://127.0.0.1:${port}/`);
  const unreachable = (await h.admin('POST', `/api/v1/destinations/${gone.id}/test`)).json();
  assert.deepEqual([unreachable.delivered, unreachable.outcome, unreachable.status], [false, 'unreachable', null]);
  assert.match(unreachable.message, /network error/);
});

test('a test send: bad input is 400, an unknown destination 404', async () => {
  const d = await webhook('inputs');
  assertError(
    await h.admin('POST', `/api/v1/destinations/${d.id}/test`, { events: [] }),
    400,
    /must NOT have additional properties|additional/i,
  );
  assertError(await h.admin('POST', '/api/v1/destinations/dst_nope/test'), 404, /no destination dst_nope/);
});

test('one dead letter with its event as received, as text; 404 and 400 for the wrong ids', async () => {
  const d = await webhook('dead');
  r.fail({ status: 422, body: { error: 'no thanks' } }, ATTEMPTS);
  const hostile = makeEvent(projectId, { 'page.path': '<script>window.__pwned=1</script>' });
  await sendEvents(h, key, [hostile]);
  const list = await waitFor('dead letter', async () => {
    const res = await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters`);
    return res.json().items.at(0);
  });
  const res = await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters/${list.id}`);
  assert.equal(res.statusCode, 200, res.body);
  const letter = res.json();
  assert.equal(letter.event_id, hostile.event_id);
  assert.match(letter.reason, /HTTP 422/);
  assert.equal(typeof letter.payload, 'string');
  assert.deepEqual(JSON.parse(letter.payload), hostile);

  const other = await webhook('other dead');
  assertError(
    await h.admin('GET', `/api/v1/destinations/${other.id}/dead-letters/${list.id}`),
    404,
    new RegExp(`no dead letter ${list.id} of destination ${other.id}`),
  );
  for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999'])
    assert.equal(
      (await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters/${bad}`)).statusCode,
      400,
      `dead letter id ${bad}`,
    );
});

test('a project is renamed; its id stays; blank, unstorable or extra input is 400, an unknown project 404', async () => {
  const { projectId: id } = await h.project();
  const res = await h.admin('PATCH', `/api/v1/projects/${id}`, { name: 'Shop (web)' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().name, 'Shop (web)');
  assert.equal(res.json().id, id);
  assert.equal((await h.admin('GET', `/api/v1/projects/${id}`)).json().name, 'Shop (web)');
  assertError(await h.admin('PATCH', `/api/v1/projects/${id}`, { name: '   ' }), 400, /^name: must not be blank$/);
  assertError(await h.admin('PATCH', `/api/v1/projects/${id}`, { name: 'a\u0000' }), 400, /NUL/);
  assertError(await h.admin('PATCH', `/api/v1/projects/${id}`, { name: '' }), 400, /name/);
  assertError(await h.admin('PATCH', `/api/v1/projects/${id}`, { name: 'x', id: 'y' }), 400, /additional/i);
  assertError(await h.admin('PATCH', `/api/v1/projects/${id}`, {}), 400, /name/);
  assertError(await h.admin('PATCH', '/api/v1/projects/nope', { name: 'x' }), 404, /no project nope/);
});

test('the OpenAPI document describes the new routes', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.ok(doc.paths['/api/v1/destinations/{destinationId}/figures'].get);
  assert.ok(doc.paths['/api/v1/destinations/{destinationId}/test'].post);
  assert.ok(doc.paths['/api/v1/destinations/{destinationId}/dead-letters/{deadLetterId}'].get);
  assert.ok(doc.paths['/api/v1/projects/{projectId}'].patch);
  assert.equal(ADMIN_TOKEN.length > 0, true);
});
