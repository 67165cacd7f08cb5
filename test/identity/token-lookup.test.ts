import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { TokenLookup } from '../../src/identity/oidc/token-lookup.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

let database: FreshDatabase;
let db: Database;

before(async () => {
  database = await freshPostgres('identity_lookup');
  db = await openDatabase({ url: database.url, dataDir: '/nonexistent', schema: 'identity' });
  await migrate(db, MIGRATIONS);
  await db.query(
    `INSERT INTO oauth_tokens (kind, access_token_signature, client_id, payload)
     SELECT 'access_token', 'a' || g, 'c', 'payload-a' || g FROM generate_series(1, 400) g`,
  );
  await db.query(
    `INSERT INTO oauth_tokens (kind, refresh_token_signature, client_id, payload, revoked, consumed_at)
     VALUES ('refresh_token', 'r1', 'c', 'payload-r1', true, now())`,
  );
});

after(async () => {
  await db?.close();
  await database?.drop();
});

test('many lookups at once, more than one query holds: each gets its own row, or nothing when unknown', async () => {
  const lookup = new TokenLookup(db, 2, 50);
  const signatures = [...Array.from({ length: 400 }, (_, i) => `a${i + 1}`), 'r1', 'missing-1', 'missing-2'];
  const rows = await Promise.all(signatures.map((s) => lookup.find(s)));
  for (let i = 0; i < 400; i++) {
    assert.equal(rows[i]?.kind, 'access_token');
    assert.equal(rows[i]?.payload, `payload-a${i + 1}`);
    assert.equal(rows[i]?.revoked, false);
  }
  assert.equal(rows[400]?.kind, 'refresh_token');
  assert.equal(rows[400]?.revoked, true);
  assert.ok(rows[400]?.consumed_at);
  assert.equal(rows[401], undefined);
  assert.equal(rows[402], undefined);
});

test('the same signature asked twice before the query goes out is answered by one row for both', async () => {
  const lookup = new TokenLookup(db);
  const [x, y] = await Promise.all([lookup.find('a7'), lookup.find('a7')]);
  assert.equal(x?.payload, 'payload-a7');
  assert.deepEqual(x, y);
});

test('a lookup made after a revocation committed sees it, even while an earlier lookup of the token is out', async () => {
  const lookup = new TokenLookup(db);
  const earlier = lookup.find('a9');
  await new Promise((resolve) => setImmediate(resolve));
  await db.query("UPDATE oauth_tokens SET revoked = true WHERE access_token_signature = 'a9'");
  const later = await lookup.find('a9');
  assert.equal(later?.revoked, true);
  assert.equal((await earlier)?.kind, 'access_token');
});

test('a failed query fails every lookup it carried, and the next lookups work again', async () => {
  const lookup = new TokenLookup(db);
  await db.query('ALTER TABLE oauth_tokens RENAME TO oauth_tokens_away');
  try {
    const results = await Promise.allSettled([lookup.find('a1'), lookup.find('a2')]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
  } finally {
    await db.query('ALTER TABLE oauth_tokens_away RENAME TO oauth_tokens');
  }
  assert.equal((await lookup.find('a1'))?.payload, 'payload-a1');
});

test("a model's lookup reads its own column only: an access token's probes no refresh signature, and finds no refresh token", async () => {
  const statements: string[] = [];
  const recording: Database = {
    ...db,
    query: ((sql: string, params?: readonly unknown[], name?: string) => {
      statements.push(sql);
      return db.query(sql, params, name);
    }) as Database['query'],
  };
  const lookup = new TokenLookup(recording);
  const [a, r] = await Promise.all([lookup.find('a3', 'access'), lookup.find('r1', 'access')]);
  assert.equal(a?.payload, 'payload-a3');
  assert.equal(r, undefined, 'a refresh token is not found as an access token');
  assert.equal(statements.length, 1);
  assert.doesNotMatch(statements[0]!, /refresh_token_signature/);

  statements.length = 0;
  const [r2, a2] = await Promise.all([lookup.find('r1', 'refresh'), lookup.find('a3', 'refresh')]);
  assert.equal(r2?.payload, 'payload-r1');
  assert.equal(a2, undefined, 'an access token is not found as a refresh token');
  assert.equal(statements.length, 1);
  assert.doesNotMatch(statements[0]!, /access_token_signature = ANY/);

  // Kinds asked for at once still share one query; the same signature under two columns is two answers.
  statements.length = 0;
  const [x, y, z] = await Promise.all([
    lookup.find('a4', 'access'),
    lookup.find('a4', 'refresh'),
    lookup.find('r1', 'either'),
  ]);
  assert.equal(x?.payload, 'payload-a4');
  assert.equal(y, undefined);
  assert.equal(z?.payload, 'payload-r1');
  assert.equal(statements.length, 1);
});
