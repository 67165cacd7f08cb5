import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { TokenWriter, type TokenValues } from '../../src/identity/oidc/token-writer.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

let database: FreshDatabase;
let db: Database;
let appId: string;
let principalId: string;

before(async () => {
  database = await freshPostgres('identity_writer');
  db = await openDatabase({ url: database.url, dataDir: '/nonexistent', schema: 'identity' });
  await migrate(db, MIGRATIONS);
  principalId = (
    await db.query<{ id: string }>(
      `INSERT INTO principals (type, identifier, display_name) VALUES ('application', 'writer', 'Writer') RETURNING id`,
    )
  ).rows[0]!.id;
  appId = (
    await db.query<{ id: string }>(
      `INSERT INTO oauth_apps (client_id, name, principal_id) VALUES ('writer-client', 'Writer', $1) RETURNING id`,
      [principalId],
    )
  ).rows[0]!.id;
  await db.query(
    `INSERT INTO oauth_grants (grant_hash, client_id, payload) VALUES ('grant-1', 'writer-client', 'sealed')`,
  );
});

after(async () => {
  await db?.close();
  await database?.drop();
});

function accessRow(signature: string, overrides: Partial<Record<number, unknown>> = {}): TokenValues {
  const row: TokenValues = [
    'client_credentials',
    signature,
    null,
    null,
    '["events:write","a \\"quoted\\" scope"]',
    '["aud-1"]',
    null,
    new Date(Date.now() + 900_000),
    null,
    '127.0.0.1',
    'agent "x", {y}',
    null,
    principalId,
    'writer-client',
    appId,
    `payload-${signature}`,
    null,
  ];
  for (const [i, v] of Object.entries(overrides)) (row as unknown[])[Number(i)] = v;
  return row;
}

test('many rows written at once are each stored with every field as given', async () => {
  const writer = new TokenWriter(db, 2, 40);
  const signatures = Array.from({ length: 150 }, (_, i) => `w${i}`);
  await Promise.all(signatures.map((s) => writer.write('access_token_signature', accessRow(s))));
  const r = await db.query<{ n: number }>(
    `SELECT count(*) AS n FROM oauth_tokens WHERE access_token_signature LIKE 'w%'`,
  );
  assert.equal(r.rows[0]!.n, 150);
  const row = (
    await db.query<Record<string, unknown>>(`SELECT * FROM oauth_tokens WHERE access_token_signature = 'w42'`)
  ).rows[0]!;
  assert.deepEqual(row.scopes, ['events:write', 'a "quoted" scope']);
  assert.deepEqual(row.audience, ['aud-1']);
  assert.equal(row.user_agent, 'agent "x", {y}');
  assert.equal(row.payload, 'payload-w42');
  assert.equal(row.app_id, appId);
  assert.equal(row.principal_id, principalId);
  assert.equal(row.refresh_token_signature, null);
  assert.ok(row.access_expires_at instanceof Date && row.access_expires_at.getTime() > Date.now());
});

test('refresh tokens link to their grant family, written in the same batch as access tokens', async () => {
  const writer = new TokenWriter(db);
  const refresh: TokenValues = [
    'refresh_token',
    null,
    'rf1',
    'grant-1',
    '["openid"]',
    '[]',
    'session-hash',
    null,
    new Date(Date.now() + 60_000),
    null,
    null,
    'sub-1',
    principalId,
    'writer-client',
    appId,
    'payload-rf1',
    null,
  ];
  await Promise.all([
    writer.write('refresh_token_signature', refresh),
    writer.write('access_token_signature', accessRow('wa1', { 3: 'grant-1' })),
  ]);
  const rows = (
    await db.query<{ family_id: string | null; kind: string }>(
      `SELECT t.family_id, t.kind FROM oauth_tokens t WHERE t.refresh_token_signature = 'rf1' OR t.access_token_signature = 'wa1' ORDER BY kind`,
    )
  ).rows;
  const grantId = (await db.query<{ id: string }>(`SELECT id FROM oauth_grants WHERE grant_hash = 'grant-1'`)).rows[0]!
    .id;
  assert.deepEqual(rows, [
    { family_id: grantId, kind: 'client_credentials' },
    { family_id: grantId, kind: 'refresh_token' },
  ]);
});

test('one bad row in a batch fails only its own write; the others are stored', async () => {
  const writer = new TokenWriter(db);
  const results = await Promise.allSettled([
    writer.write('access_token_signature', accessRow('good-1')),
    writer.write('access_token_signature', accessRow('bad-1', { 14: randomUUID() })),
    writer.write('access_token_signature', accessRow('good-2')),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.equal((results[1] as PromiseRejectedResult).reason.code, '23503');
  const stored = (
    await db.query<{ s: string }>(
      `SELECT access_token_signature AS s FROM oauth_tokens WHERE access_token_signature IN ('good-1', 'bad-1', 'good-2') ORDER BY 1`,
    )
  ).rows;
  assert.deepEqual(
    stored.map((r) => r.s),
    ['good-1', 'good-2'],
  );
});

test('the same signature twice in one batch is an upsert, not a failure', async () => {
  const writer = new TokenWriter(db);
  await Promise.all([
    writer.write('access_token_signature', accessRow('twice', { 15: 'first' })),
    writer.write('access_token_signature', accessRow('twice', { 15: 'second' })),
  ]);
  const rows = (
    await db.query<{ payload: string }>(`SELECT payload FROM oauth_tokens WHERE access_token_signature = 'twice'`)
  ).rows;
  assert.equal(rows.length, 1);
  assert.ok(['first', 'second'].includes(rows[0]!.payload));
});

/** The database, but each statement runs in a transaction that then reads the synchronous_commit its commit would use. */
function observingCommits(): { db: Database; commits: Map<string, Set<string>> } {
  const commits = new Map<string, Set<string>>();
  const observed: Database = {
    ...db,
    query: ((sql: string, params?: readonly unknown[], name?: string) =>
      db.transaction(async (tx) => {
        const r = await tx.query(sql, params, name);
        const mode = (await tx.query<{ m: string }>(`SELECT current_setting('synchronous_commit') AS m`)).rows[0]!.m;
        const seen = commits.get(name ?? sql) ?? new Set();
        commits.set(name ?? sql, seen.add(mode));
        return r;
      })) as Database['query'],
  };
  return { db: observed, commits };
}

function refreshRow(signature: string): TokenValues {
  const row = accessRow(signature, { 0: 'refresh_token', 1: null, 2: signature, 7: null });
  row[8] = new Date(Date.now() + 60_000);
  return row;
}

test('asynchronous access tokens: their statements alone commit without waiting for the WAL flush, and every row is readable at once', async () => {
  const { db: observed, commits } = observingCommits();
  const writer = new TokenWriter(observed, 2, 40, 'asynchronous');
  await writer.write('access_token_signature', accessRow('async-one'));
  await Promise.all(['async-a', 'async-b', 'async-c'].map((s) => writer.write('access_token_signature', accessRow(s))));
  await writer.write('refresh_token_signature', refreshRow('async-refresh'));
  await Promise.all(['async-r1', 'async-r2'].map((s) => writer.write('refresh_token_signature', refreshRow(s))));
  assert.deepEqual(Object.fromEntries([...commits].map(([name, modes]) => [name, [...modes]])), {
    identity_token_insert_one_access_token_signature_async: ['off'],
    identity_token_insert_many_access_token_signature_async: ['off'],
    identity_token_insert_one_refresh_token_signature: ['on'],
    identity_token_insert_many_refresh_token_signature: ['on'],
  });
  // Read on the pool (another connection than the write's, as a request's lookup would be) once the write returned.
  const stored = await db.query<{ s: string }>(
    `SELECT coalesce(access_token_signature, refresh_token_signature) AS s FROM oauth_tokens
      WHERE access_token_signature LIKE 'async-%' OR refresh_token_signature LIKE 'async-%' ORDER BY 1`,
  );
  assert.deepEqual(
    stored.rows.map((r) => r.s),
    ['async-a', 'async-b', 'async-c', 'async-one', 'async-r1', 'async-r2', 'async-refresh'],
  );
  // The session's own setting is untouched after the statement (set_config's third argument: this transaction only).
  assert.equal((await db.query<{ m: string }>(`SELECT current_setting('synchronous_commit') AS m`)).rows[0]!.m, 'on');
});

test('synchronous access tokens (IDENTITY_ACCESS_TOKEN_COMMIT=synchronous) wait for the WAL flush as every other row', async () => {
  const { db: observed, commits } = observingCommits();
  const writer = new TokenWriter(observed, 2, 40, 'synchronous');
  await writer.write('access_token_signature', accessRow('sync-one'));
  await Promise.all(['sync-a', 'sync-b'].map((s) => writer.write('access_token_signature', accessRow(s))));
  assert.deepEqual(Object.fromEntries([...commits].map(([name, modes]) => [name, [...modes]])), {
    identity_token_insert_one_access_token_signature: ['on'],
    identity_token_insert_many_access_token_signature: ['on'],
  });
});
