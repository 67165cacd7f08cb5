import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { generateKeyPair, exportSPKI } from 'jose';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { CredentialLookup } from '../../src/identity/credentials/lookup.ts';
import { createApiKey, createKeypair, revokeCredential } from '../../src/identity/credentials/store.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

// The batched reads and writes of the credential grants, called directly so that many requests surely share a statement
// (through HTTP the provider's own awaits spread them out); test/identity/credentials.test.ts covers the grants themselves.
let database: FreshDatabase;
let db: Database;
const principals: string[] = [];

before(async () => {
  database = await freshPostgres('identity_credlookup');
  db = await openDatabase({ url: database.url, dataDir: '/nonexistent', schema: 'identity' });
  await migrate(db, MIGRATIONS);
  for (let i = 0; i < 3; i++) {
    const r = await db.query<{ id: string }>(
      `INSERT INTO principals (type, identifier, display_name) VALUES ('service', $1, $1) RETURNING id`,
      [`svc-${i}`],
    );
    principals.push(r.rows[0]!.id);
  }
});

after(async () => {
  await db?.close();
  await database?.drop();
});

test('API keys asked for together: each finds its own principal; revoked, unknown and malformed ones find nothing', async () => {
  const keys = await Promise.all(principals.map((p) => createApiKey(db, p, { scopes: ['reports:read'] })));
  await revokeCredential(db, principals[2]!, keys[2]!.credential.id, 'leaked');
  const lookup = new CredentialLookup(db, 1, 4);
  const asked = [
    keys[0]!.apiKey,
    keys[1]!.apiKey,
    keys[2]!.apiKey,
    `sk_${'x'.repeat(43)}`,
    'not-an-api-key',
    keys[1]!.apiKey,
    keys[0]!.apiKey,
  ];
  const found = await Promise.all(asked.map((k) => lookup.apiKey(k)));
  assert.deepEqual(
    found.map((c) => c?.principalId),
    [principals[0], principals[1], undefined, undefined, undefined, principals[1], principals[0]],
  );
  assert.deepEqual(found[0]?.scopes, ['reports:read']);
});

test('key pairs asked for together by key id: live ones found with their key, revoked and unknown ones not', async () => {
  const pems = await Promise.all(
    [0, 1].map(async () => exportSPKI((await generateKeyPair('ES256', { extractable: true })).publicKey)),
  );
  const live = await createKeypair(db, principals[0]!, { publicKey: pems[0]!, algorithm: 'ES256', keyId: 'k-live' });
  const gone = await createKeypair(db, principals[1]!, { publicKey: pems[1]!, algorithm: 'ES256', keyId: 'k-gone' });
  await revokeCredential(db, principals[1]!, gone.id, 'rotated');
  const lookup = new CredentialLookup(db);
  const found = await Promise.all(
    ['k-live', 'k-gone', 'k-none', 'k-live', 'x'.repeat(201)].map((k) => lookup.keypair(k)),
  );
  assert.equal(found[0]?.id, live.id);
  assert.equal(found[0]?.keyAlgorithm, 'ES256');
  assert.match(found[0]?.publicKey ?? '', /^-----BEGIN PUBLIC KEY-----/);
  assert.deepEqual(
    found.slice(1).map((c) => c?.id),
    [undefined, undefined, live.id, undefined],
  );
});

test('a jti sent many times in one statement is spent by exactly one request, and stays spent', async () => {
  const lookup = new CredentialLookup(db);
  const expires = new Date(Date.now() + 60_000);
  const jti = randomUUID();
  const same = await Promise.all(Array.from({ length: 12 }, () => lookup.spendJti(principals[0]!, jti, expires)));
  assert.equal(same.filter(Boolean).length, 1, 'one of twelve spends it');
  assert.equal(same[0], true, 'the first asked is the one');
  const mixed = await Promise.all([
    lookup.spendJti(principals[0]!, jti, expires),
    lookup.spendJti(principals[1]!, jti, expires),
    lookup.spendJti(principals[0]!, randomUUID(), expires),
  ]);
  assert.deepEqual(
    mixed,
    [false, true, true],
    'spent stays spent; the same jti of another principal and a new jti are fresh',
  );
});

test('a statement that fails for one row fails only that request', async () => {
  const lookup = new CredentialLookup(db);
  const expires = new Date(Date.now() + 60_000);
  const results = await Promise.allSettled([
    lookup.spendJti(principals[0]!, randomUUID(), expires),
    lookup.spendJti(randomUUID(), randomUUID(), expires),
    lookup.spendJti(principals[1]!, randomUUID(), expires),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
    'an unknown principal breaks the foreign key of its row only',
  );
});
