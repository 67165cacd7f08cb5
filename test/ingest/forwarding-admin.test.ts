import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSealedString } from '../../src/kit/crypto.ts';
import { ingestService } from '../../src/ingest/service.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import { createDestination, sendEvents } from './forwarding-helpers.ts';

const SECRET_KEY = 'c'.repeat(64);
let h: IngestHarness;
let projectId: string;
let key: string;

before(async () => {
  // Forwarding off: these tests look at what is stored and queued, not at delivery.
  h = await startIngest({ PLATFORM_SECRET_KEY: SECRET_KEY }, 'fwdadmin');
  ({ projectId, key } = await h.project());
});

after(async () => {
  await h.close();
});

const patch = (id: string, payload: unknown, token = ADMIN_TOKEN) =>
  h.app.inject({
    method: 'PATCH',
    url: `/api/v1/destinations/${id}`,
    headers: { authorization: `Bearer ${token}` },
    payload: payload as object,
  });

function assertError(res: { statusCode: number; json(): any }, status: number, message: RegExp) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.match(res.json().error.message, message);
}

test('destination routes need the admin token', async () => {
  const noToken = await h.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}/destinations` });
  assert.equal(noToken.statusCode, 401);
  const wrong = await h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/destinations`,
    headers: { authorization: 'Bearer wrong-token-wrong-token' },
    payload: { name: 'x', kind: 'webhook', base_url: 'https://example.com' },
  });
  assert.equal(wrong.statusCode, 401);
  assert.equal((await patch('dst_x', { enabled: false }, 'nope-nope-nope-nope')).statusCode, 401);
  assert.equal(
    (await h.app.inject({ method: 'POST', url: '/api/v1/destinations/dst_x/dead-letters/replay', payload: {} }))
      .statusCode,
    401,
  );
});

test('destination and dead-letter input the database cannot take is 400, never a 500', async () => {
  const bad = (res: { statusCode: number; json(): any }, message: RegExp) => assertError(res, 400, message);
  const url = `/api/v1/projects/${projectId}/destinations`;
  const webhook = { kind: 'webhook', base_url: 'https://example.com/hook' };
  bad(await h.admin('POST', url, { name: 'a\u0000', ...webhook }), /^name: must not contain a NUL character$/);
  bad(
    await h.admin('POST', url, { name: 'a', ...webhook, settings: { note: 'x\u0000' } }),
    /^settings\.note: must not contain a NUL/,
  );
  bad(
    await h.admin('POST', url, { name: 'a', ...webhook, settings: { 'k\u0000': 1 } }),
    /^settings: must not contain a NUL character in a key$/,
  );
  const deep = `{"name":"a","kind":"webhook","base_url":"https://example.com/hook","settings":{"deep":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
  const deepRes = await h.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: deep,
  });
  bad(deepRes, /^settings\.deep(\.0)*: must not be nested more than 64 levels deep$/);
  bad(await h.admin('GET', '/api/v1/projects/x%00/destinations'), /^projectId: /);
  bad(await h.admin('GET', '/api/v1/destinations/dst%00'), /^destinationId: /);
  const created = await h.admin('POST', url, { name: 'nul-checks', ...webhook });
  assert.equal(created.statusCode, 201);
  const id = created.json().id as string;
  bad(await patch(id, { name: '\u0000' }), /^name: /);
  bad(await patch(id, { settings: { a: '\u0000' } }), /^settings\.a: /);
  // Ids beyond PostgreSQL's bigint (and JavaScript's safe integers) are refused by the schema.
  bad(
    await h.admin(
      'GET',
      `/api/v1/destinations/${id}/dead-letters?cursor=${Buffer.from('[100000000000000000000]').toString('base64url')}`,
    ),
    /cursor/,
  );
  bad(await h.admin('POST', `/api/v1/destinations/${id}/dead-letters/replay`, { ids: [1e20] }), /ids/);
  assert.equal((await h.admin('GET', `/api/v1/destinations/${id}`)).json().name, 'nul-checks');
});

test('bad destination input is refused with a message naming the problem', async () => {
  const url = `/api/v1/projects/${projectId}/destinations`;
  assertError(await h.admin('POST', url, { name: 'a', kind: 'kafka' }), 400, /kind/);
  assertError(await h.admin('POST', url, { name: 'a', kind: 'webhook' }), 400, /base_url: required for webhook/);
  assertError(
    await h.admin('POST', url, { name: 'a', kind: 'webhook', base_url: 'ftp://example.com/x' }),
    400,
    /base_url: must be an absolute http or https URL/,
  );
  assertError(await h.admin('POST', url, { name: 'a', kind: 'webhook', base_url: 'not a url' }), 400, /base_url/);
  assertError(
    await h.admin('POST', url, { name: 'a', kind: 'webhook', base_url: 'https://user:pw@example.com/' }),
    400,
    /must not carry credentials/,
  );
  // Copied from a vendor's web app rather than its API: the fragment would never be sent.
  assertError(
    await h.admin('POST', url, {
      name: 'a',
      kind: 'posthog',
      base_url: 'https://eu.posthog.com/project/1#/events',
      credentials: { api_key: 'phc_x' },
    }),
    400,
    /base_url: must not have a fragment/,
  );
  assertError(
    await h.admin('POST', url, { name: 'a', kind: 'webhook', base_url: 'https://example.com/hook#' }),
    400,
    /base_url: must not have a fragment/,
  );
  assertError(
    await h.admin('POST', url, {
      name: 'a',
      kind: 'webhook',
      base_url: 'https://example.com',
      credentials: { secret: 'short' },
    }),
    400,
    /at least 16/,
  );
  assertError(await h.admin('POST', url, { name: 'a', kind: 'posthog' }), 400, /credentials.api_key: required/);
  assertError(
    await h.admin('POST', url, { name: 'a', kind: 'segment', credentials: { api_key: 'x' } }),
    400,
    /credentials.api_key: not a credential of segment/,
  );
  assertError(
    await h.admin('POST', url, {
      name: 'a',
      kind: 'mixpanel',
      credentials: { service_account_username: 'u', service_account_secret: 's' },
    }),
    400,
    /settings.project_id/,
  );
  assertError(
    await h.admin('POST', url, {
      name: 'a',
      kind: 'amplitude',
      credentials: { api_key: 'k' },
      settings: { min_id_length: 0 },
    }),
    400,
    /min_id_length/,
  );
  assertError(
    await h.admin('POST', url, { name: 'a', kind: 'posthog', credentials: { api_key: 'k' }, extra: 1 }),
    400,
    /extra|additional/,
  );
  assertError(await h.admin('POST', url, { name: '', kind: 'posthog', credentials: { api_key: 'k' } }), 400, /name/);
  assertError(
    await h.admin('POST', url, { name: '  ', kind: 'posthog', credentials: { api_key: 'k' } }),
    400,
    /^name: must not be blank$/,
  );
  assertError(
    await h.admin('POST', '/api/v1/projects/nope/destinations', {
      name: 'a',
      kind: 'posthog',
      credentials: { api_key: 'k' },
    }),
    404,
    /no project nope/,
  );
  assertError(await h.admin('GET', '/api/v1/projects/nope/destinations'), 404, /no project nope/);
  assertError(await h.admin('GET', '/api/v1/destinations/dst_none'), 404, /no destination/);
  assertError(await h.admin('DELETE', '/api/v1/destinations/dst_none'), 404, /no destination/);
  assertError(await patch('dst_none', { enabled: true }), 404, /no destination/);
  assertError(await h.admin('GET', '/api/v1/destinations/dst_none/dead-letters'), 404, /no destination/);
  assertError(await h.admin('POST', '/api/v1/destinations/dst_none/dead-letters/replay', {}), 404, /no destination/);
});

test('credentials are sealed at rest and never returned; vendor defaults apply; names are unique per project', async () => {
  const created = await createDestination(h, projectId, {
    name: 'ph',
    kind: 'posthog',
    credentials: { api_key: 'phc_super_secret_value' },
  });
  assert.equal(created.base_url, 'https://us.i.posthog.com/');
  assert.deepEqual(created.credential_fields, ['api_key']);
  assert.equal(created.enabled, true);
  assert.equal(created.secret, undefined);
  const listed = await h.admin('GET', `/api/v1/projects/${projectId}/destinations`);
  for (const body of [
    JSON.stringify(created),
    listed.body,
    (await h.admin('GET', `/api/v1/destinations/${created.id}`)).body,
  ])
    assert.ok(!body.includes('phc_super_secret_value'));
  const row = (await h.sql.query('SELECT * FROM ingest.destinations WHERE id = $1', [created.id])).rows[0];
  assert.ok(!JSON.stringify(row).includes('phc_super_secret_value'), 'not stored in clear');
  assert.deepEqual(
    JSON.parse(
      openSealedString(Buffer.from(SECRET_KEY, 'hex'), row.credentials_sealed, `ingest.destination:${created.id}`),
    ),
    { api_key: 'phc_super_secret_value' },
  );
  // Bound to the destination's id: GCM's tag check refuses them under any other destination's context.
  assert.throws(
    () => openSealedString(Buffer.from(SECRET_KEY, 'hex'), row.credentials_sealed, 'ingest.destination:dst_other'),
    { name: 'Error', message: 'Unsupported state or unable to authenticate data' },
  );
  assertError(
    await h.admin('POST', `/api/v1/projects/${projectId}/destinations`, {
      name: 'ph',
      kind: 'segment',
      credentials: { write_key: 'w' },
    }),
    409,
    /already has a destination named "ph"/,
  );
});

test('a destination is changed (enabled, renamed, re-pointed, new credentials) and deleted with what it had queued', async () => {
  const d = await createDestination(h, projectId, {
    name: 'mp',
    kind: 'mixpanel',
    credentials: { project_token: 'tok_1' },
  });
  const changed = await patch(d.id, {
    enabled: false,
    name: 'mixpanel eu',
    base_url: 'https://api-eu.mixpanel.com',
    credentials: { service_account_username: 'sa', service_account_secret: 'sa_secret_2' },
    settings: { project_id: '99' },
  });
  assert.equal(changed.statusCode, 200, changed.body);
  const v = changed.json();
  assert.equal(v.enabled, false);
  assert.equal(v.name, 'mixpanel eu');
  assert.equal(v.base_url, 'https://api-eu.mixpanel.com/');
  assert.deepEqual(v.credential_fields.sort(), ['service_account_secret', 'service_account_username']);
  assert.deepEqual(v.settings, { project_id: '99' });
  assert.ok(!changed.body.includes('sa_secret_2'));
  assertError(await patch(d.id, { credentials: { project_token: '' } }), 400, /project_token/);
  assertError(await patch(d.id, { base_url: 'mailto:x@example.com' }), 400, /base_url/);
  assertError(await patch(d.id, { name: 'ph' }), 409, /named "ph"/);
  assertError(await patch(d.id, { name: ' \t ' }), 400, /^name: must not be blank$/);
  assert.equal((await h.admin('GET', `/api/v1/destinations/${d.id}`)).json().name, 'mixpanel eu');

  assert.equal((await patch(d.id, { enabled: true })).statusCode, 200);
  await sendEvents(h, key, [makeEvent(projectId), makeEvent(projectId)]);
  assert.equal((await h.admin('GET', `/api/v1/destinations/${d.id}`)).json().pending, 2);
  // With the JSON content type some clients put on every request, and no body.
  const removed = await h.app.inject({
    method: 'DELETE',
    url: `/api/v1/destinations/${d.id}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
  assert.equal(removed.statusCode, 204);
  assert.equal((await h.admin('GET', `/api/v1/destinations/${d.id}`)).statusCode, 404);
  assert.equal(
    (await h.sql.query('SELECT count(*)::int AS n FROM ingest.outbox WHERE destination_id = $1', [d.id])).rows[0].n,
    0,
  );
});

test('a webhook given credentials without a secret gets a new one, shown once in the answer (it signs every later delivery)', async () => {
  const d = await createDestination(h, projectId, {
    name: 'rotating hook',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/in',
  });
  const opened = async () => {
    const row = (await h.sql.query('SELECT credentials_sealed FROM ingest.destinations WHERE id = $1', [d.id])).rows[0];
    return JSON.parse(
      openSealedString(Buffer.from(SECRET_KEY, 'hex'), row.credentials_sealed, `ingest.destination:${d.id}`),
    ).secret as string;
  };
  assert.equal(await opened(), d.secret);
  const rotated = await patch(d.id, { credentials: {} });
  assert.equal(rotated.statusCode, 200, rotated.body);
  const secret = rotated.json().secret;
  assert.match(
    String(secret),
    /^whsec_/,
    'the generated secret is in the answer, or no receiver could check a signature again',
  );
  assert.notEqual(secret, d.secret);
  assert.equal(await opened(), secret);
  // Given, renamed or unchanged, a secret is never echoed.
  const given = await patch(d.id, { credentials: { secret: 'a-secret-of-my-own-choosing' } });
  assert.equal(given.json().secret, undefined);
  assert.equal(await opened(), 'a-secret-of-my-own-choosing');
  assert.equal((await patch(d.id, { name: 'rotated hook' })).json().secret, undefined);
});

test('new settings alone are checked as at creation, with the credentials the destination holds', async () => {
  const amp = await createDestination(h, projectId, {
    name: 'amp settings',
    kind: 'amplitude',
    credentials: { api_key: 'amp_key' },
  });
  assertError(
    await patch(amp.id, { settings: { min_id_length: -1 } }),
    400,
    /^settings\.min_id_length: must be a positive integer$/,
  );
  const ok = await patch(amp.id, { settings: { min_id_length: 3 } });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(ok.json().settings, { min_id_length: 3 });
  const mp = await createDestination(h, projectId, {
    name: 'mp settings',
    kind: 'mixpanel',
    credentials: { service_account_username: 'sa', service_account_secret: 'sa_secret' },
    settings: { project_id: '7' },
  });
  assertError(
    await patch(mp.id, { settings: {} }),
    400,
    /^settings\.project_id: required with a mixpanel service account$/,
  );
  assert.deepEqual(
    (await h.admin('GET', `/api/v1/destinations/${mp.id}`)).json().settings,
    { project_id: '7' },
    'a refused change leaves the destination as it was',
  );
});

test("the outbox gets one entry per enabled destination of the event's own project, in the same transaction, and none for a re-sent event", async () => {
  const other = await h.project();
  const mine = await createDestination(h, projectId, {
    name: 'hook-a',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/a',
  });
  const off = await createDestination(h, projectId, {
    name: 'hook-off',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/b',
    enabled: false,
  });
  const theirs = await createDestination(h, other.projectId, {
    name: 'hook-c',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/c',
  });
  const events = [makeEvent(projectId), makeEvent(projectId), makeEvent(projectId)];
  await sendEvents(h, key, events);
  await sendEvents(h, key, events);
  const count = async (id: string) =>
    (await h.sql.query('SELECT count(*)::int AS n FROM ingest.outbox WHERE destination_id = $1', [id])).rows[0].n;
  assert.equal(await count(mine.id), 3);
  assert.equal(await count(off.id), 0);
  assert.equal(await count(theirs.id), 0);
  const { rows } = await h.sql.query(
    `SELECT e.event_id FROM ingest.outbox o JOIN ingest.events e ON e.id = o.event_row_id WHERE o.destination_id = $1 ORDER BY o.id`,
    [mine.id],
  );
  assert.deepEqual(
    rows.map((r) => r.event_id),
    events.map((e) => e.event_id),
  );
  for (const d of [mine, off, theirs]) await h.admin('DELETE', `/api/v1/destinations/${d.id}`);
});

test('dead letters are paged by id and replayed by id or all at once', async () => {
  const d = await createDestination(h, projectId, {
    name: 'dl',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/dl',
  });
  await sendEvents(
    h,
    key,
    Array.from({ length: 5 }, () => makeEvent(projectId)),
  );
  // Five events as the worker would leave them after their last failure.
  await h.sql.query(
    `WITH moved AS (DELETE FROM ingest.outbox WHERE destination_id = $1 RETURNING destination_id, event_row_id, created_at)
     INSERT INTO ingest.dead_letters (destination_id, event_row_id, event_id, reason, attempts, first_failed_at, queued_at)
     SELECT m.destination_id, m.event_row_id, e.event_id, 'HTTP 400: nope', 10, now(), m.created_at FROM moved m JOIN ingest.events e ON e.id = m.event_row_id ORDER BY m.event_row_id`,
    [d.id],
  );
  const page1 = (await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters?limit=2`)).json();
  assert.equal(page1.items.length, 2);
  assert.equal(typeof page1.next, 'string');
  const page2 = (await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters?limit=2&cursor=${page1.next}`)).json();
  assert.equal(page2.items.length, 2);
  assert.ok(page2.items[0].id > page1.items[1].id);
  const page3 = (await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters?limit=2&cursor=${page2.next}`)).json();
  assert.equal(page3.items.length, 1);
  assert.equal(page3.next, null);
  assertError(await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters?cursor=WzEsMl0`), 400, /cursor/);
  assertError(await h.admin('GET', `/api/v1/destinations/${d.id}/dead-letters?limit=0`), 400, /limit/);
  assertError(await h.admin('POST', `/api/v1/destinations/${d.id}/dead-letters/replay`, { ids: ['x'] }), 400, /ids/);

  const one = await h.admin('POST', `/api/v1/destinations/${d.id}/dead-letters/replay`, { ids: [page1.items[0].id] });
  assert.deepEqual(one.json(), { replayed: 1 });
  assert.equal((await h.admin('GET', `/api/v1/destinations/${d.id}`)).json().pending, 1);
  const rest = await h.admin('POST', `/api/v1/destinations/${d.id}/dead-letters/replay`);
  assert.deepEqual(rest.json(), { replayed: 4 });
  const after = (await h.admin('GET', `/api/v1/destinations/${d.id}`)).json();
  assert.equal(after.pending, 5);
  assert.equal(after.dead_letters, 0);
  const attempts = (await h.sql.query('SELECT DISTINCT attempts FROM ingest.outbox WHERE destination_id = $1', [d.id]))
    .rows;
  assert.deepEqual(attempts, [{ attempts: 0 }]);
  await h.admin('DELETE', `/api/v1/destinations/${d.id}`);
});

test('the CLI creates, lists, disables, enables and deletes destinations and lists and replays dead letters', async () => {
  const env = {
    DATABASE_URL: h.database.url,
    DATA_DIR: '/nonexistent-unused',
    LOG_LEVEL: 'silent',
    PLATFORM_SECRET_KEY: SECRET_KEY,
  };
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await ingestService.load(env).command!(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  Object.assign(process.env, { SEGMENT_KEY_FOR_TEST: 'seg_from_env_123' });
  const created = await run(
    'destinations',
    'create',
    projectId,
    '--name',
    'cli-seg',
    '--kind',
    'segment',
    '--credential',
    'write_key=env:SEGMENT_KEY_FOR_TEST',
    '--base-url',
    'https://events.eu1.segmentapis.com',
  );
  assert.equal(created.code, 0, created.err);
  const id = /^(dst_\S+)/.exec(created.out)![1]!;
  assert.ok(!created.out.includes('seg_from_env_123'));
  const row = (await h.sql.query('SELECT credentials_sealed FROM ingest.destinations WHERE id = $1', [id])).rows[0];
  assert.deepEqual(
    JSON.parse(openSealedString(Buffer.from(SECRET_KEY, 'hex'), row.credentials_sealed, `ingest.destination:${id}`)),
    { write_key: 'seg_from_env_123' },
  );

  const hook = await run(
    'destinations',
    'create',
    projectId,
    '--name',
    'cli-hook',
    '--kind',
    'webhook',
    '--base-url',
    'https://hooks.example.com/cli',
  );
  assert.equal(hook.code, 0, hook.err);
  assert.match(hook.out, /webhook signing secret \(shown once, keep it now\): whsec_/);

  const listed = await run('destinations', 'list', projectId);
  assert.equal(listed.code, 0);
  assert.match(listed.out, new RegExp(`${id}\\s+segment\\s+enabled\\s+cli-seg`));
  assert.match(listed.out, /credentials: write_key/);
  assert.ok(!listed.out.includes('seg_from_env_123') && !listed.out.includes('whsec_'));

  assert.match((await run('destinations', 'disable', id)).out, /disabled/);
  assert.match((await run('destinations', 'enable', id)).out, /enabled/);

  await sendEvents(h, key, [makeEvent(projectId)]);
  await h.sql.query(
    `WITH moved AS (DELETE FROM ingest.outbox WHERE destination_id = $1 RETURNING destination_id, event_row_id, created_at)
     INSERT INTO ingest.dead_letters (destination_id, event_row_id, event_id, reason, attempts, first_failed_at, queued_at)
     SELECT m.destination_id, m.event_row_id, e.event_id, 'HTTP 400: refused', 10, now(), m.created_at FROM moved m JOIN ingest.events e ON e.id = m.event_row_id`,
    [id],
  );
  const dl = await run('dead-letters', 'list', id);
  assert.equal(dl.code, 0);
  assert.match(dl.out, /attempts=10 .* HTTP 400: refused/);
  const replayed = await run('dead-letters', 'replay', id);
  assert.equal(replayed.code, 0);
  assert.match(replayed.out, /queued 1 dead letter of/);
  assert.match((await run('dead-letters', 'list', id)).out, /has no dead letters/);

  assert.equal((await run('destinations', 'delete', id)).code, 0);
  const gone = await run('destinations', 'delete', id);
  assert.equal(gone.code, 1);
  assert.match(gone.err, /no destination/);

  const usage = await run('destinations', 'create', projectId, '--kind', 'segment');
  assert.equal(usage.code, 2);
  assert.match(
    usage.err,
    /^platform: ingest destinations create: --name is required\nusage: platform ingest destinations create PROJECT --name N --kind /,
  );
  const badKind = await run('destinations', 'create', projectId, '--name', 'x', '--kind', 'kafka');
  assert.equal(badKind.code, 1);
  assert.match(badKind.err, /kind: must be one of/);
  const missingEnv = await run(
    'destinations',
    'create',
    projectId,
    '--name',
    'x',
    '--kind',
    'segment',
    '--credential',
    'write_key=env:NOT_SET_ANYWHERE',
  );
  assert.equal(missingEnv.code, 2);
  assert.match(missingEnv.err, /NOT_SET_ANYWHERE is not set/);
  const badLimit = await run('dead-letters', 'list', 'dst_x', '--limit', 'lots');
  assert.equal(badLimit.code, 2);
  assert.equal((await run('dead-letters', 'list', 'dst_missing')).code, 1);
  assert.equal((await run('dead-letters', 'purge', 'dst_missing')).code, 2);
});
