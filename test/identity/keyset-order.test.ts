import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { listTokens } from '../../src/identity/oidc/token-admin.ts';
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
