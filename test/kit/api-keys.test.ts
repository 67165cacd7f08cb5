import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyCommands } from '../../src/kit/api-keys/commands.ts';
import { createApiKeyLookup } from '../../src/kit/api-keys/lookup.ts';
import { apiKeyTable, ApiKeyInputError, type ApiKeyRecord } from '../../src/kit/api-keys/table.ts';
import { EXIT, runCommand } from '../../src/kit/cli-runner.ts';
import { sha256Hex } from '../../src/kit/crypto.ts';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

let database: FreshDatabase;
let db: Database;

// Two shapes of table: keys that belong to no one, and keys of a project (ingest's); a third, audit's free owner, below.
const plain = apiKeyTable({ prefix: 'tk_' });
const owned = apiKeyTable<ApiKeyRecord & { project_id: string }>({
  prefix: 'pk_',
  owner: { column: 'project_id', table: 'projects' },
});

before(async () => {
  database = await freshPostgres('kitapikeys');
  db = await openDatabase({ url: database.url, dataDir: '', schema: 'keys_plain' });
  await db.exec(`
    CREATE TABLE api_keys (id text PRIMARY KEY, name text NOT NULL DEFAULT '', key_hash text NOT NULL UNIQUE,
      prefix text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), revoked_at timestamptz);
    CREATE SCHEMA keys_owned;
    CREATE TABLE keys_owned.projects (id text PRIMARY KEY);
    CREATE TABLE keys_owned.api_keys (id text PRIMARY KEY, project_id text NOT NULL REFERENCES keys_owned.projects(id),
      name text NOT NULL DEFAULT '', key_hash text NOT NULL UNIQUE, prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(), revoked_at timestamptz);
    INSERT INTO keys_owned.projects VALUES ('shop'), ('blog');
    CREATE SCHEMA keys_free;
    CREATE TABLE keys_free.api_keys (id text PRIMARY KEY, name text NOT NULL DEFAULT '', key_hash text NOT NULL UNIQUE,
      prefix text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), revoked_at timestamptz, owner text);
  `);
});
after(async () => {
  await db?.close();
  await database?.drop();
});

/** The owned table lives in its own schema: the service's connection would have it on its search path. */
async function inOwnedSchema<T>(fn: (owned: Database) => Promise<T>): Promise<T> {
  const other = await openDatabase({ url: database.url, dataDir: '', schema: 'keys_owned' });
  try {
    return await fn(other);
  } finally {
    await other.close();
  }
}

test('a key: the prefix and 256 random bits, shown once, stored as its SHA-256 only, listed without it', async () => {
  const { key, record } = (await plain.create(db, { name: 'ci' }))!;
  assert.match(key, /^tk_[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(Object.keys(record), ['id', 'name', 'prefix', 'created_at', 'revoked_at']);
  assert.equal(record.prefix, key.slice(0, 11));
  assert.match(record.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const stored = (await db.query('SELECT * FROM api_keys WHERE id = $1', [record.id])).rows[0] as Record<
    string,
    unknown
  >;
  assert.equal(stored.key_hash, sha256Hex(key));
  assert.ok(!JSON.stringify(stored).includes(key.slice(11)), 'the key is not stored in clear');

  const listed = await plain.list(db);
  assert.deepEqual(
    listed.map(({ position: _, ...k }) => k),
    [record],
  );
  assert.ok(!JSON.stringify(listed).includes(key.slice(11)));
  assert.deepEqual(await plain.holderOf(db, sha256Hex(key)), { keyId: record.id, owner: null });
  assert.equal((await plain.create(db, {}))!.record.name, '', 'a key without a name has none');
});

test('revoke tells who caches lookups the key hash, keeps the first time, and answers no such key as undefined', async () => {
  const { key, record } = (await plain.create(db, { name: 'to revoke' }))!;
  const told: string[] = [];
  const revoked = async (hash: string) => {
    told.push(hash);
  };
  const first = await plain.revoke(db, record.id, { revoked });
  assert.deepEqual(Object.keys(first!), ['id', 'name', 'prefix', 'created_at', 'revoked_at'], 'not the hash');
  assert.notEqual(first!.revoked_at, null);
  assert.equal((await plain.revoke(db, record.id, { revoked }))!.revoked_at, first!.revoked_at);
  assert.deepEqual(told, [sha256Hex(key), sha256Hex(key)]);
  assert.equal(await plain.holderOf(db, sha256Hex(key)), undefined);
  assert.equal(await plain.revoke(db, 'key_nope', { revoked }), undefined);
  assert.equal(told.length, 2);
});

test('keys that belong to an owner: created only for one that exists, listed and revoked within it', async () => {
  await inOwnedSchema(async (odb) => {
    assert.equal(await owned.create(odb, { owner: 'nope' }), undefined);
    assert.equal((await odb.query('SELECT count(*)::int AS n FROM api_keys')).rows[0]!.n, 0);
    const shop = (await owned.create(odb, { owner: 'shop', name: 'server' }))!;
    assert.match(shop.key, /^pk_/);
    assert.deepEqual(Object.keys(shop.record), ['id', 'project_id', 'name', 'prefix', 'created_at', 'revoked_at']);
    const blog = (await owned.create(odb, { owner: 'blog' }))!;
    assert.deepEqual(
      (await owned.list(odb, { owner: 'shop' })).map((k) => k.id),
      [shop.record.id],
    );
    assert.deepEqual(await owned.holderOf(odb, sha256Hex(blog.key)), { keyId: blog.record.id, owner: 'blog' });
    assert.equal(await owned.ownerExists(odb, 'blog'), true);
    assert.equal(await owned.ownerExists(odb, 'nope'), false);
    const revoked = async () => {};
    assert.equal(await owned.revoke(odb, blog.record.id, { owner: 'shop', revoked }), undefined, 'not in that project');
    assert.notEqual(await owned.holderOf(odb, sha256Hex(blog.key)), undefined);
    assert.equal((await owned.revoke(odb, blog.record.id, { owner: 'blog', revoked }))!.project_id, 'blog');
  });
});

test('a name given must show as something and fit a line', async () => {
  for (const [name, message] of [
    ['', /^name: must not be blank/],
    [' \t\u200b', /^name: must not be blank/],
    ['x'.repeat(201), /^name: must be at most 200 characters, without NUL$/],
    ['a\0b', /^name: must be at most 200 characters, without NUL$/],
  ] as const)
    await assert.rejects(plain.create(db, { name }), (err: unknown) => {
      assert.ok(err instanceof ApiKeyInputError);
      assert.match(err.message, message);
      return true;
    });
  assert.equal((await plain.create(db, { name: 'x'.repeat(200) }))!.record.name.length, 200);
});

test('the lookup caches live keys by hash, not unknown ones, and a revocation through it drops the key at once', async () => {
  let reads = 0;
  const counted = {
    ...plain,
    holderOf: (q: Database, hash: string) => {
      reads++;
      return plain.holderOf(q, hash);
    },
  };
  const lookup = createApiKeyLookup({ db, table: counted, ttlSeconds: 300 });
  const { key, record } = (await plain.create(db, { name: 'cached' }))!;
  assert.equal((await lookup.find(key))?.keyId, record.id);
  assert.equal((await lookup.find(key))?.keyId, record.id);
  assert.equal(reads, 1, 'the second lookup is served from the cache');

  // Revoked behind the cache's back: still served until it expires...
  await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [record.id]);
  assert.equal((await lookup.find(key))?.keyId, record.id);
  // ...but a revocation that tells the lookup is refused at once.
  const other = (await plain.create(db, {}))!;
  assert.notEqual(await lookup.find(other.key), undefined);
  await plain.revoke(db, other.record.id, { revoked: lookup.revoked });
  assert.equal(await lookup.find(other.key), undefined);

  const unknown = 'tk_not-yet';
  assert.equal(await lookup.find(unknown), undefined);
  reads = 0;
  assert.equal(await lookup.find(unknown), undefined);
  assert.equal(reads, 1, 'an unknown key is asked about again');
});

test('the commands: owner argument, exports, JSON without secrets or hashes, failures named', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  const group = {
    name: 'demo',
    commands: apiKeyCommands({
      service: 'demo',
      table: owned,
      withDatabase: inOwnedSchema,
      exports: { id: 'DEMO_KEY_ID', key: 'DEMO_KEY' },
      owner: { argument: 'PROJECT', noun: 'project' },
      redisUrl: undefined,
      cacheSeconds: 0,
    }),
  };
  const run = async (...args: string[]) => {
    out.length = 0;
    err.length = 0;
    return runCommand(group, args, io);
  };

  assert.equal(await run('keys', 'create', 'shop', '--export'), EXIT.ok);
  const [idLine, keyLine] = out;
  const id = /^export DEMO_KEY_ID='(key_[A-Za-z0-9_-]+)'$/.exec(idLine!)![1]!;
  assert.match(keyLine!, /^export DEMO_KEY='pk_[A-Za-z0-9_-]{43}'$/);
  assert.deepEqual(err, ['store this key now: it is not kept and cannot be shown again']);

  assert.equal(await run('keys', 'list', 'shop', '--json'), EXIT.ok);
  const items = (JSON.parse(out.join('\n')) as { items: Record<string, unknown>[] }).items;
  assert.ok(items.some((k) => k.id === id));
  for (const k of items)
    assert.deepEqual(Object.keys(k), ['id', 'project_id', 'name', 'prefix', 'created_at', 'revoked_at']);

  assert.equal(await run('keys', 'revoke', id, '--json'), EXIT.ok);
  assert.deepEqual(Object.keys(JSON.parse(out.join('\n'))), [
    'id',
    'project_id',
    'name',
    'prefix',
    'created_at',
    'revoked_at',
  ]);
  assert.equal(await run('keys', 'revoke', id), EXIT.ok);
  assert.deepEqual(out, [`revoked key ${id} of project shop`], 'nothing cached anywhere: nothing to wait for');

  assert.equal(await run('keys', 'create', 'nope'), EXIT.failure);
  assert.deepEqual(err, ['platform demo keys create: no project nope']);
  assert.equal(await run('keys', 'list', 'nope'), EXIT.failure);
  assert.deepEqual(err, ['platform demo keys list: no project nope']);
  assert.equal(await run('keys', 'create', 'shop', '--name', ' '), EXIT.failure);
  assert.match(err[0]!, /^platform demo keys create: name: must not be blank/);
  assert.equal(await run('keys', 'revoke', 'key_nope'), EXIT.failure);
  assert.deepEqual(err, ['platform demo keys revoke: no key key_nope']);
  assert.equal(await run('keys', 'create'), EXIT.usage);
  assert.match(err[0]!, /\nusage: platform demo keys create PROJECT \[--name NAME\] \[--json\] \[--export\]$/);
});

test('a free owner (audit: the person who made a key in the console): optional, listed and revoked within it, told by the lookup', async () => {
  const free = apiKeyTable<ApiKeyRecord & { owner: string | null }>({ prefix: 'fk_', owner: { column: 'owner' } });
  const other = await openDatabase({ url: database.url, dataDir: '', schema: 'keys_free' });
  try {
    const mine = (await free.create(other, { name: 'ci', owner: 'token:olga' }))!;
    const cli = (await free.create(other, { name: 'made on the command line' }))!;
    assert.equal(mine.record.owner, 'token:olga');
    assert.equal(cli.record.owner, null);
    assert.deepEqual(
      (await free.list(other, { owner: 'token:olga' })).map((k) => k.id),
      [mine.record.id],
    );
    assert.equal((await free.list(other)).length, 2, 'without an owner: every key');
    const lookup = createApiKeyLookup({ db: other, table: free, ttlSeconds: 0 });
    assert.deepEqual(await lookup.find(mine.key), { keyId: mine.record.id, owner: 'token:olga' });
    assert.deepEqual(await lookup.find(cli.key), { keyId: cli.record.id, owner: null });
    const revoked = async () => {};
    assert.equal(await free.revoke(other, mine.record.id, { owner: 'token:mallory', revoked }), undefined);
    assert.ok((await free.revoke(other, mine.record.id, { owner: 'token:olga', revoked }))?.revoked_at);
    assert.equal(await lookup.find(mine.key), undefined);
    await assert.rejects(free.ownerExists(other, 'token:olga'), /belong to no owner/);
  } finally {
    await other.close();
  }
});
