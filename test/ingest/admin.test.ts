import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sha256Hex } from '../../src/kit/crypto.ts';
import { ingestCommand } from '../../src/ingest/cli.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';

let h: IngestHarness;

before(async () => {
  h = await startIngest({}, 'admin');
});

after(async () => {
  await h.close();
});

test('the admin API requires the admin token', async () => {
  for (const authorization of [undefined, 'Bearer wrong-token-but-long-enough', `Basic ${ADMIN_TOKEN}`, ADMIN_TOKEN]) {
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/v1/projects',
      headers: authorization ? { authorization } : {},
    });
    assert.equal(res.statusCode, 401, String(authorization));
    assert.equal(res.json().error.code, 'UNAUTHORIZED');
  }
  const created = await h.app.inject({ method: 'POST', url: '/api/v1/projects', payload: { name: 'sneaky' } });
  assert.equal(created.statusCode, 401);
  assert.equal(
    (await h.sql.query(`SELECT count(*)::int AS n FROM ingest.projects WHERE name = 'sneaky'`)).rows[0].n,
    0,
  );
});

test('without INGEST_ADMIN_TOKEN the admin API is closed', async () => {
  const closed = await startIngest({ INGEST_ADMIN_TOKEN: '' }, 'admin_closed');
  try {
    const res = await closed.app.inject({
      method: 'GET',
      url: '/api/v1/projects',
      headers: { authorization: 'Bearer anything-at-all-here' },
    });
    assert.equal(res.statusCode, 401);
    assert.match(res.json().error.message, /INGEST_ADMIN_TOKEN/);
  } finally {
    await closed.close();
  }
});

test('projects: create (chosen or generated id), list, get, conflict, bad input', async () => {
  const chosen = await h.admin('POST', '/api/v1/projects', { name: 'Web shop', id: 'web-shop' });
  assert.equal(chosen.statusCode, 201);
  assert.deepEqual({ id: chosen.json().id, name: chosen.json().name }, { id: 'web-shop', name: 'Web shop' });
  const generated = await h.admin('POST', '/api/v1/projects', { name: 'Mobile' });
  assert.match(generated.json().id, /^prj_[A-Za-z0-9_-]{12}$/);
  const again = await h.admin('POST', '/api/v1/projects', { name: 'Other', id: 'web-shop' });
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().error.code, 'CONFLICT');
  assert.equal((await h.admin('POST', '/api/v1/projects', { name: 'x', id: 'has space' })).statusCode, 400);
  assert.equal((await h.admin('POST', '/api/v1/projects', {})).statusCode, 400);
  const list = await h.admin('GET', '/api/v1/projects');
  assert.ok(list.json().items.some((p: { id: string }) => p.id === 'web-shop'));
  assert.equal((await h.admin('GET', '/api/v1/projects/web-shop')).json().name, 'Web shop');
  assert.equal((await h.admin('GET', '/api/v1/projects/nope')).statusCode, 404);
});

test('lists are pages of {items, next} in creation order; a cursor walks every item once', async () => {
  for (let i = 0; i < 5; i++) await h.admin('POST', '/api/v1/projects', { name: `paged ${i}`, id: `paged-${i}` });
  const all = (await h.admin('GET', '/api/v1/projects?limit=500')).json();
  assert.equal(all.next, null);
  assert.match(all.items[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = (await h.admin('GET', `/api/v1/projects?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json();
    assert.ok(page.items.length <= 2 && page.items.length > 0);
    seen.push(...page.items.map((p: { id: string }) => p.id));
    cursor = page.next;
  } while (cursor);
  assert.deepEqual(
    seen,
    all.items.map((p: { id: string }) => p.id),
  );
  const forged = await h.admin('GET', '/api/v1/projects?cursor=not-ours');
  assert.equal(forged.statusCode, 400);
  assert.equal(forged.json().error.code, 'VALIDATION_ERROR');
  assert.equal((await h.admin('GET', '/api/v1/projects?limit=501')).statusCode, 400);
});

test('admin input PostgreSQL cannot hold (NUL characters) is 400 naming the field, never a 500', async () => {
  const bad = async (res: { statusCode: number; json(): any }, field: RegExp) => {
    assert.equal(res.statusCode, 400, JSON.stringify(res.json()));
    assert.equal(res.json().error.code, 'VALIDATION_ERROR');
    assert.match(res.json().error.message, field);
  };
  await bad(
    await h.admin('POST', '/api/v1/projects', { name: 'a\u0000b' }),
    /^name: must not contain a NUL character$/,
  );
  await bad(await h.admin('GET', '/api/v1/projects/a%00b'), /^projectId: must not contain a NUL character$/);
  await bad(await h.admin('GET', '/api/v1/projects/a%00b/keys'), /^projectId: /);
  await h.admin('POST', '/api/v1/projects', { name: 'Nul', id: 'nul-proj' });
  await bad(await h.admin('POST', '/api/v1/projects/nul-proj/keys', { name: 'x\u0000' }), /^name: /);
  await bad(await h.admin('DELETE', '/api/v1/projects/nul-proj/keys/key%00'), /^keyId: /);
  assert.equal(
    (await h.sql.query(`SELECT count(*)::int AS n FROM ingest.api_keys WHERE project_id = 'nul-proj'`)).rows[0].n,
    0,
  );
});

test('keys: shown once, stored only as SHA-256, several per project, listed without the key, revocable', async () => {
  await h.admin('POST', '/api/v1/projects', { name: 'Keys', id: 'keys-proj' });
  const a = await h.admin('POST', '/api/v1/projects/keys-proj/keys', { name: 'ci' });
  const b = await h.admin('POST', '/api/v1/projects/keys-proj/keys');
  assert.equal(a.statusCode, 201);
  assert.equal(a.headers['cache-control'], 'no-store');
  const keyA = a.json().key as string;
  assert.match(keyA, /^isk_[A-Za-z0-9_-]{43}$/);
  assert.ok(keyA.startsWith(a.json().prefix));
  assert.notEqual(keyA, b.json().key);

  const stored = (await h.sql.query(`SELECT * FROM ingest.api_keys WHERE id = $1`, [a.json().id])).rows[0];
  assert.equal(stored.key_hash, sha256Hex(keyA));
  const everything = JSON.stringify((await h.sql.query('SELECT * FROM ingest.api_keys')).rows);
  assert.ok(!everything.includes(keyA), 'the key is not stored in clear');

  const list = await h.admin('GET', '/api/v1/projects/keys-proj/keys');
  assert.equal(list.json().items.length, 2);
  assert.ok(!list.body.includes(keyA));
  assert.deepEqual(
    list.json().items.map((k: { name: string }) => k.name),
    ['ci', ''],
  );

  assert.equal((await h.admin('POST', '/api/v1/projects/missing/keys', { name: 'x' })).statusCode, 404);
  assert.equal((await h.admin('GET', '/api/v1/projects/missing/keys')).statusCode, 404);
  assert.equal(
    (await h.admin('DELETE', `/api/v1/projects/web-shop/keys/${a.json().id}`)).statusCode,
    404,
    'a key is revoked through its own project',
  );

  const send = (key: string) =>
    h.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-svc-api-key': key },
      payload: { events: [makeEvent('keys-proj')] },
    });
  assert.equal((await send(keyA)).statusCode, 202);
  // As clients that set a JSON content type on every request send it: no body, but the header.
  const revoked = await h.app.inject({
    method: 'DELETE',
    url: `/api/v1/projects/keys-proj/keys/${a.json().id}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
  assert.equal(revoked.statusCode, 200);
  assert.ok(!revoked.body.includes(keyA));
  assert.equal((await send(keyA)).statusCode, 401, 'revoked through this instance: refused at once, despite the cache');
  assert.equal((await send(b.json().key)).statusCode, 202);
});

test('a key revoked elsewhere (the CLI, another instance) stops working within INGEST_KEY_CACHE_SECONDS', async () => {
  const uncached = await startIngest({ INGEST_KEY_CACHE_SECONDS: '0' }, 'admin_nocache');
  try {
    const p = await uncached.project();
    const send = () =>
      uncached.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers: { 'x-svc-api-key': p.key },
        payload: { events: [makeEvent(p.projectId)] },
      });
    assert.equal((await send()).statusCode, 202);
    const other = new pg.Client({ connectionString: uncached.database.url });
    await other.connect();
    await other.query('UPDATE ingest.api_keys SET revoked_at = now() WHERE id = $1', [p.keyId]);
    await other.end();
    assert.equal((await send()).statusCode, 401);
  } finally {
    await uncached.close();
  }
});

test('a blank project or key name (white space only) is 400 naming the field, and nothing is stored', async () => {
  const bad = (res: { statusCode: number; json(): any }) => {
    assert.equal(res.statusCode, 400, JSON.stringify(res.json()));
    assert.equal(res.json().error.code, 'VALIDATION_ERROR');
    assert.match(res.json().error.message, /^name: must not be blank/);
  };
  for (const name of ['  ', '\t\n', '\u00a0\u3000', '\u200b'])
    bad(await h.admin('POST', '/api/v1/projects', { name, id: 'blank-proj' }));
  assert.equal((await h.admin('GET', '/api/v1/projects/blank-proj')).statusCode, 404);
  assert.equal((await h.admin('POST', '/api/v1/projects', { name: ' Shop ', id: 'blank-proj' })).statusCode, 201);
  for (const name of ['', '   ']) bad(await h.admin('POST', '/api/v1/projects/blank-proj/keys', { name }));
  assert.equal(
    (await h.sql.query(`SELECT count(*)::int AS n FROM ingest.api_keys WHERE project_id = 'blank-proj'`)).rows[0].n,
    0,
  );
  // Left out, a key simply has no name.
  assert.equal((await h.admin('POST', '/api/v1/projects/blank-proj/keys')).statusCode, 201);
});

test('the CLI creates projects and keys, lists and revokes them', async () => {
  const config = loadIngestConfig({
    DATABASE_URL: h.database.url,
    LOG_LEVEL: 'silent',
    DATA_DIR: '/tmp/unused-ingest-cli',
  });
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await ingestCommand(args, config, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };
  const created = await run('projects', 'create', 'Checkout', 'app', '--id', 'cli-proj');
  assert.equal(created.code, 0);
  assert.deepEqual(created.out, ['created project cli-proj (Checkout app)']);
  assert.equal((await run('projects', 'create', 'Dup', '--id', 'cli-proj')).code, 1);
  assert.match((await run('projects', 'list')).out.join('\n'), /^cli-proj\tCheckout app\t/m);

  const key = await run('keys', 'create', 'cli-proj', '--name', 'server');
  assert.equal(key.code, 0);
  const [line, secret] = key.out;
  const keyId = /^created key (key_\S+) for project cli-proj$/.exec(line!)![1]!;
  assert.match(secret!, /^isk_/);
  assert.match(key.err.join(''), /cannot be shown again/);

  const events = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': secret! },
    payload: { events: [makeEvent('cli-proj')] },
  });
  assert.deepEqual(events.json(), { accepted: 1, rejected: 0, errors: [] });

  const listed = await run('keys', 'list', 'cli-proj');
  assert.match(listed.out[0]!, new RegExp(`^${keyId}\\tisk_\\S+…\\tserver\\t.*\\tactive$`));
  assert.ok(!listed.out.join('').includes(secret!));
  assert.equal((await run('keys', 'revoke', keyId)).code, 0);
  assert.match((await run('keys', 'list', 'cli-proj')).out[0]!, /\trevoked /);
  assert.equal((await run('keys', 'revoke', 'key_nope')).code, 1);
  assert.equal((await run('keys', 'create', 'no-such-project')).code, 1);
  const blank = await run('keys', 'create', 'cli-proj', '--name', '  ');
  assert.equal(blank.code, 1);
  assert.match(blank.err.join('\n'), /name: must not be blank/);
  assert.equal((await run('projects', 'create', ' ', '  ')).code, 1);
  assert.equal((await run('keys', 'list', 'no-such-project')).code, 1);
  assert.equal((await run('frobnicate')).code, 2);
  assert.equal((await run('projects', 'create', 'x', '--bogus')).code, 2);

  // --export: shell lines for scripts (the README's walk evaluates them).
  const exported = await run('projects', 'create', "Bob's shop", '--export');
  assert.equal(exported.code, 0);
  const projectId = /^export PROJECT_ID='(prj_[A-Za-z0-9_-]+)'$/.exec(exported.out.join('\n'))![1]!;
  assert.equal((await h.admin('GET', `/api/v1/projects/${projectId}`)).json().name, "Bob's shop");
  const exportedKey = await run('keys', 'create', projectId, '--export');
  assert.equal(exportedKey.out.length, 2);
  assert.match(exportedKey.out[0]!, /^export KEY_ID='key_[A-Za-z0-9_-]+'$/);
  const apiKey = /^export API_KEY='(isk_[A-Za-z0-9_-]+)'$/.exec(exportedKey.out[1]!)![1]!;
  const sent = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': apiKey },
    payload: { events: [makeEvent(projectId)] },
  });
  assert.equal(sent.json().accepted, 1);
});
