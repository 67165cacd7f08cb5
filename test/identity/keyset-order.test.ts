import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { listTokens } from '../../src/identity/oidc/token-admin.ts';
import { listSessions } from '../../src/identity/people/sessions.ts';
import { listExchanges } from '../../src/identity/delegation/store.ts';
import { listDeliveries } from '../../src/identity/webhooks/store.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

// Keyset-paginated lists whose rows show their creation time cut to the millisecond: two rows of one millisecond, the
// later one with the smaller id, must still come newest first and each page must start where the last one ended.
// An access token and its refresh token are often written within a millisecond of each other.
const OLDER = { id: 'ffffffff-ffff-4fff-bfff-ffffffffffff', at: '2026-01-01 00:00:00.000100+00' };
const NEWER = { id: '00000000-0000-4000-8000-000000000001', at: '2026-01-01 00:00:00.000900+00' };

let database: FreshDatabase;
let db: Database;
let principalId: string;

before(async () => {
  database = await freshPostgres('identity_keyset');
  db = await openDatabase({ url: database.url, dataDir: '/nonexistent', schema: 'identity' });
  await migrate(db, MIGRATIONS);
  principalId = (
    await db.query<{ id: string }>(
      "INSERT INTO principals (type, identifier, display_name) VALUES ('human', 'keyset@example.com', 'Keyset') RETURNING id",
    )
  ).rows[0]!.id;
});

after(async () => {
  await db?.close();
  await database?.drop();
});

/** Walks a list one item a page, as GET …?limit=1 then ?cursor=… does (the store is asked for one more than shown). */
async function walk<R extends { id: string; position: [string, string] }>(
  list: (page: { limit: number; after?: readonly [string, string] }) => Promise<R[]>,
): Promise<string[]> {
  const seen: string[] = [];
  let after: readonly [string, string] | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const rows = await list({ limit: 2, ...(after ? { after } : {}) });
    if (rows[0]) seen.push(rows[0].id);
    if (rows.length < 2) return seen;
    after = rows[0]!.position;
  }
  throw new Error('the pages never ended');
}

test("a principal's tokens of one millisecond: newest first, and the pages give both", async () => {
  for (const [row, kind, column] of [
    [OLDER, 'access_token', 'access_token_signature'],
    [NEWER, 'refresh_token', 'refresh_token_signature'],
  ] as const) {
    await db.query(
      `INSERT INTO oauth_tokens (id, kind, ${column}, client_id, payload, principal_id, created_at, access_expires_at, refresh_expires_at)
       VALUES ($1, $2, $3, 'c', 'p', $4, $5, now() + interval '1 hour', ${kind === 'refresh_token' ? "now() + interval '1 day'" : 'NULL'})`,
      [row.id, kind, `sig-${row.id}`, principalId, row.at],
    );
  }
  const all = await listTokens(db, principalId, { limit: 100 });
  assert.deepEqual(
    all.map((t) => t.id),
    [NEWER.id, OLDER.id],
    'newest first, by the exact creation time',
  );
  assert.deepEqual(await walk((page) => listTokens(db, principalId, page)), [NEWER.id, OLDER.id]);
});

test("a person's login sessions of one millisecond: newest first, and the pages give both", async () => {
  for (const row of [OLDER, NEWER]) {
    await db.query(
      `INSERT INTO login_sessions (id, token_hash, principal_id, created_at, expires_at)
       VALUES ($1, $2, $3, $4, now() + interval '1 hour')`,
      [row.id, `hash-${row.id}`, principalId, row.at],
    );
  }
  assert.deepEqual(
    (await listSessions(db, principalId, { limit: 100 })).map((s) => s.id),
    [NEWER.id, OLDER.id],
  );
  assert.deepEqual(await walk((page) => listSessions(db, principalId, page)), [NEWER.id, OLDER.id]);
});

test('delegation exchanges of one millisecond: newest first, and the pages give both', async () => {
  for (const row of [OLDER, NEWER]) {
    await db.query(
      `INSERT INTO delegation_exchanges (id, created_at, principal_id, actor_id, delegation_chain, client_id, outcome)
       VALUES ($1, $2, $3, $3, '[]', 'c', 'issued')`,
      [row.id, row.at, principalId],
    );
  }
  assert.deepEqual(
    (await listExchanges(db, principalId, { limit: 100 })).map((x) => x.id),
    [NEWER.id, OLDER.id],
  );
  assert.deepEqual(await walk((page) => listExchanges(db, principalId, page)), [NEWER.id, OLDER.id]);
});

test("a webhook's deliveries past id 9: newest first by number, and the pages give every one", async () => {
  const webhookId = (
    await db.query<{ id: string }>(
      "INSERT INTO webhooks (url, secret_sealed) VALUES ('https://hooks.example/x', 'sealed') RETURNING id",
    )
  ).rows[0]!.id;
  await db.query(
    "INSERT INTO webhook_deliveries (webhook_id, event_type) SELECT $1, 'test' FROM generate_series(1, 12)",
    [webhookId],
  );
  const all = (await listDeliveries(db, webhookId, { limit: 100 })).map((d) => Number(d.id));
  assert.deepEqual(all, [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  const seen: number[] = [];
  let before: string | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const rows = await listDeliveries(db, webhookId, { before, limit: 6 });
    seen.push(...rows.slice(0, 5).map((d) => Number(d.id)));
    if (rows.length <= 5) break;
    before = rows[4]!.id;
  }
  assert.deepEqual(seen, all);
});
