import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { sha256Hex } from '../../src/kit/crypto.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { ExchangeWrites } from '../../src/identity/delegation/exchange-writes.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

// The exchange's statements batched, called directly so that several exchanges surely share one statement;
// test/identity/delegation.test.ts covers the exchange itself through the token endpoint.
let database: FreshDatabase;
let db: Database;
let person: string;
let agent: string;

async function token(value: string, revoked = false): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO oauth_tokens (kind, access_token_signature, client_id, payload, revoked) VALUES ('access_token', $1, 'c', 'p', $2) RETURNING id`,
    [sha256Hex(value), revoked],
  );
  return r.rows[0]!.id;
}

before(async () => {
  database = await freshPostgres('identity_exchwrites');
  db = await openDatabase({ url: database.url, dataDir: '/nonexistent', schema: 'identity' });
  await migrate(db, MIGRATIONS);
  const ids = await db.query<{ id: string }>(
    `INSERT INTO principals (type, identifier, display_name) VALUES ('human', 'p', 'p'), ('agent', 'a', 'a') RETURNING id`,
  );
  [person, agent] = ids.rows.map((r) => r.id) as [string, string];
});

after(async () => {
  await db?.close();
  await database?.drop();
});

test('row ids asked for together: each value finds its own row, an unknown one none', async () => {
  const ids = await Promise.all(['v1', 'v2'].map((v) => token(v)));
  const writes = new ExchangeWrites(db);
  assert.deepEqual(await Promise.all(['v1', 'v2', 'unknown', 'v1'].map((v) => writes.tokenRowId(v))), [
    ids[0],
    ids[1],
    undefined,
    ids[0],
  ]);
});

test('links in one statement: each token gets its own chain and parent, one whose parent was revoked is revoked and recorded refused', async () => {
  const live = await token('parent-live');
  const dead = await token('parent-dead', true);
  const children = await Promise.all(['c1', 'c2', 'c3'].map((v) => token(v)));
  const writes = new ExchangeWrites(db);
  const record = (parentTokenId: string, scope: string) => ({
    principalId: person,
    actorId: agent,
    chain: [person, agent],
    clientId: 'app',
    scopes: [scope],
    audience: [],
    outcome: 'issued' as const,
    parentTokenId,
    expiresAt: new Date(Date.now() + 60_000),
    clientIp: '192.0.2.1',
  });
  const linked = await Promise.all([
    writes.linkAndRecord('c1', record(live, 's1')),
    writes.linkAndRecord('c2', record(dead, 's2')),
    writes.linkAndRecord('c3', record(live, 's3')),
  ]);
  assert.deepEqual(linked, [children[0], undefined, children[2]]);
  const rows = await db.query<{
    id: string;
    parent_token_id: string;
    revoked: boolean;
    revoked_reason: string | null;
    delegation_chain: string[];
  }>(
    'SELECT id, parent_token_id, revoked, revoked_reason, delegation_chain FROM oauth_tokens WHERE id = ANY($1::uuid[]) ORDER BY id',
    [children],
  );
  const byId = new Map(rows.rows.map((r) => [r.id, r]));
  assert.equal(byId.get(children[0]!)?.parent_token_id, live);
  assert.deepEqual(byId.get(children[0]!)?.delegation_chain, [person, agent]);
  assert.equal(byId.get(children[0]!)?.revoked, false);
  assert.equal(byId.get(children[1]!)?.revoked, true);
  assert.equal(byId.get(children[1]!)?.revoked_reason, 'parent_revoked');
  const recorded = await db.query<{
    scopes: string[];
    outcome: string;
    error: string | null;
    token_id: string | null;
    client_ip: string;
  }>('SELECT scopes, outcome, error, token_id, client_ip FROM delegation_exchanges ORDER BY scopes->>0');
  assert.deepEqual(recorded.rows, [
    { scopes: ['s1'], outcome: 'issued', error: null, token_id: children[0], client_ip: '192.0.2.1' },
    { scopes: ['s2'], outcome: 'refused', error: 'invalid_grant', token_id: null, client_ip: '192.0.2.1' },
    { scopes: ['s3'], outcome: 'issued', error: null, token_id: children[2], client_ip: '192.0.2.1' },
  ]);
});

test('a link that fails for its own row fails only its request', async () => {
  const parent = await token('parent-x');
  await Promise.all(['d1', 'd2'].map((v) => token(v)));
  const writes = new ExchangeWrites(db);
  const base = {
    chain: [person, agent],
    clientId: 'app',
    scopes: [],
    audience: [],
    outcome: 'issued' as const,
    parentTokenId: parent,
  };
  const results = await Promise.allSettled([
    writes.linkAndRecord('d1', { ...base, principalId: person, actorId: agent }),
    writes.linkAndRecord('d2', { ...base, principalId: person, actorId: '00000000-0000-4000-8000-000000000000' }),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected'],
    'an unknown actor breaks the foreign key of its record only',
  );
});
