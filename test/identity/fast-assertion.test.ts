import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign as signBytes, type KeyObject } from 'node:crypto';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { CredentialLookup } from '../../src/identity/credentials/lookup.ts';
import { createKeypair, revokeCredential } from '../../src/identity/credentials/store.ts';
import { verifyAssertion } from '../../src/identity/credentials/grants.ts';
import { verifyAssertionFast } from '../../src/identity/credentials/fast-assertion.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

// The fast route's own check of a key-pair assertion (src/identity/credentials/fast-assertion.ts) may accept only what
// the provider's (grants.ts, jose) accepts: each assertion below is given to both. The ordinary ones must pass both,
// or the fast route would hand every request to the provider.
const ISSUER = 'https://id.example.test';
const TOKEN_ENDPOINT = `${ISSUER}/oauth/token`;
let database: FreshDatabase;
let db: Database;
let principal: string;
let other: string;
const keys: Record<string, KeyObject> = {};

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function jwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: KeyObject,
  alg = String(header.alg),
): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = signBytes('sha256', Buffer.from(input), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${signature.toString('base64url')}`;
}

before(async () => {
  database = await freshPostgres('identity_fast_assertion');
  db = await openDatabase({ url: database.url, dataDir: '/nonexistent', schema: 'identity' });
  await migrate(db, MIGRATIONS);
  const ids: string[] = [];
  for (const name of ['svc-a', 'svc-b']) {
    const r = await db.query<{ id: string }>(
      `INSERT INTO principals (type, identifier, display_name) VALUES ('service', $1, $1) RETURNING id`,
      [name],
    );
    ids.push(r.rows[0]!.id);
  }
  [principal, other] = ids as [string, string];
  const pairs = {
    es: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    rs: generateKeyPairSync('rsa', { modulusLength: 2048 }),
    small: generateKeyPairSync('rsa', { modulusLength: 1024 }),
    revoked: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  };
  for (const [kid, pair] of Object.entries(pairs)) {
    keys[kid] = pair.privateKey;
    const algorithm = kid === 'rs' || kid === 'small' ? 'RS256' : 'ES256';
    const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const made = await createKeypair(db, principal, { publicKey, algorithm, keyId: kid }).catch(() => undefined);
    if (kid === 'revoked' && made) await revokeCredential(db, principal, made.id, 'rotated');
  }
});

after(async () => {
  await db?.close();
  await database?.drop();
});

test('the fast check accepts the ordinary assertions and nothing the provider refuses', async () => {
  const deps = { credentials: new CredentialLookup(db), issuer: ISSUER, tokenEndpoint: TOKEN_ENDPOINT };
  const now = Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: principal,
    sub: principal,
    aud: ISSUER,
    exp: now + 60,
    jti: randomUUID(),
    ...extra,
  });
  const es = (payload: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    jwt({ alg: 'ES256', kid: 'es', ...header }, payload, keys.es!, 'ES256');
  const valid = es(claims());
  const [h, p] = valid.split('.');
  const cases: [string, string, boolean][] = [
    ['ES256', valid, true],
    ['RS256', jwt({ alg: 'RS256', kid: 'rs' }, claims(), keys.rs!), true],
    [
      'the token endpoint as audience, in a list, with iat and nbf',
      es(claims({ aud: ['x', TOKEN_ENDPOINT], iat: now, nbf: now })),
      true,
    ],
    ['a typ header', es(claims(), { typ: 'JWT' }), true],
    ['a wrong signature', `${h}.${p}.${es(claims()).split('.')[2]}`, false],
    ['signed by another key', jwt({ alg: 'ES256', kid: 'es' }, claims(), keys.revoked!), false],
    ['a revoked key', jwt({ alg: 'ES256', kid: 'revoked' }, claims(), keys.revoked!), false],
    ['an unknown kid', jwt({ alg: 'ES256', kid: 'none' }, claims(), keys.es!), false],
    ['no kid', jwt({ alg: 'ES256' }, claims(), keys.es!), false],
    ['alg other than the key', jwt({ alg: 'RS256', kid: 'es' }, claims(), keys.rs!), false],
    ['alg none', `${b64({ alg: 'none', kid: 'es' })}.${p}.`, false],
    ['a crit header', es(claims(), { crit: ['exp'] }), false],
    ['b64 false', es(claims(), { b64: false, crit: ['b64'] }), false],
    ['an RSA key under 2048 bits', jwt({ alg: 'RS256', kid: 'small' }, claims(), keys.small!), false],
    ['another issuer', es(claims({ iss: other })), false],
    ['another subject', es(claims({ sub: other })), false],
    ['another audience', es(claims({ aud: 'https://elsewhere.test' })), false],
    ['no audience', es(claims({ aud: undefined })), false],
    ['expired beyond the skew', es(claims({ exp: now - 31 })), false],
    ['exp as a string', es(claims({ exp: String(now + 60) })), false],
    ['no exp', es(claims({ exp: undefined })), false],
    ['living too long', es(claims({ exp: now + 400 })), false],
    ['not yet valid', es(claims({ nbf: now + 120 })), false],
    ['iat not a number', es(claims({ iat: 'yesterday' })), false],
    ['no jti', es(claims({ jti: undefined })), false],
    ['an empty jti', es(claims({ jti: '' })), false],
    ['a jti too long', es(claims({ jti: 'x'.repeat(201) })), false],
    [
      'a payload that is an array',
      jwt({ alg: 'ES256', kid: 'es' }, [1] as unknown as Record<string, unknown>, keys.es!),
      false,
    ],
    ['four parts', `${valid}.x`, false],
    ['padding', `${h}=.${p}.${valid.split('.')[2]}`, false],
    ['not a JWT', 'not.a.jwt', false],
  ];
  for (const [what, assertion, accepted] of cases) {
    const provider = await verifyAssertion(deps, assertion).then(
      () => true,
      () => false,
    );
    const fast = await verifyAssertionFast(deps, assertion);
    assert.equal(provider, accepted, `${what}: the provider's check`);
    assert.equal(fast !== undefined, accepted, `${what}: the fast check`);
  }
  const taken = await verifyAssertionFast(deps, valid);
  assert.equal(taken?.credential.principalId, principal);
  assert.equal(taken?.exp, now + 60);
  assert.match(taken?.jti ?? '', /^[0-9a-f-]{36}$/);
});
