import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

// POST /api/v1/datasources/:id/query reads the caller's token (session, user) and the data source in one statement
// on the service's database (issue 33): who may run what, and every refusal, stay as they were.

let target: FreshDatabase;
let s: DashboardServer;
let admin: SignedIn;
let editor: SignedIn;
let viewer: SignedIn;
let stranger: SignedIn;
let sourceId: number;

/** The service database's statements that read the token or a data source, while `fn` runs. */
async function lookupsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const original = pg.Pool.prototype.query;
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
    if (text && /\b(access_tokens|data_sources)\b/.test(text)) seen.push(text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await fn();
  } finally {
    pg.Pool.prototype.query = original;
  }
  return seen;
}

const query = (as: SignedIn | undefined, id: number | string, body: unknown = { query: 'SELECT 1 AS one' }) =>
  s.request('POST', `/api/v1/datasources/${id}/query`, { as, body });

before(async () => {
  target = await freshPostgres('dsqtokensource');
  s = await startDashboard('dsqtokensource');
  admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  editor = await s.signIn({ tenant: 'acme', role: 'editor' });
  viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
  stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
  const r = await s.request('POST', '/api/v1/datasources', {
    as: admin,
    body: { name: 'Warehouse', slug: 'wh', type: 'postgres', connectionUrl: target.url },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  sourceId = r.body.id;
});

after(async () => {
  await s?.close();
  await target?.drop();
});

describe('a query on a data source: the token and the source in one statement', () => {
  test('one statement reads both', async () => {
    let answer: Awaited<ReturnType<typeof query>> | undefined;
    const lookups = await lookupsDuring(async () => {
      answer = await query(editor, sourceId);
    });
    assert.equal(answer!.status, 200, JSON.stringify(answer!.body));
    assert.deepEqual(answer!.body.rows, [{ one: 1 }]);
    assert.equal(lookups.length, 1, lookups.join('\n---\n'));
  });

  test('the same refusals: 401, 403, 404 for another tenant or an unknown id, 400 for an id that is none', async () => {
    assert.equal((await query(undefined, sourceId)).status, 401);
    assert.equal((await query(viewer, sourceId)).status, 403);
    const other = await query(stranger, sourceId);
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, 'NOT_FOUND');
    assert.equal((await query(editor, 987654)).status, 404);
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999'])
      assert.equal((await query(editor, bad)).status, 400, bad);
  });

  test('a revoked session is refused at once, and a changed source is read fresh', async () => {
    const other = await s.signIn({ tenant: 'acme', role: 'editor', email: 'second@acme.example' });
    assert.equal((await query(other, sourceId)).status, 200);
    const out = await s.request('POST', '/api/v1/auth/logout', { as: other });
    assert.ok(out.status < 300, JSON.stringify(out.body));
    assert.equal((await query(other, sourceId)).status, 401);

    const off = await s.request('PUT', `/api/v1/datasources/${sourceId}`, {
      as: admin,
      body: { name: 'Warehouse', slug: 'wh', type: 'postgres', connectionUrl: target.url, active: false },
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    const refused = await query(editor, sourceId);
    assert.notEqual(refused.status, 200, JSON.stringify(refused.body));
  });
});
