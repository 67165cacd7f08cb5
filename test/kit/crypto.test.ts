import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  hashSecret,
  needsRehash,
  openSealedString,
  randomToken,
  safeEqual,
  seal,
  sha256Hex,
  verifySecret,
} from '../../src/kit/crypto.ts';

test('sha256Hex matches the known digest', () => {
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('safeEqual compares content and length', () => {
  assert.equal(safeEqual('secret', 'secret'), true);
  assert.equal(safeEqual('secret', 'secreT'), false);
  assert.equal(safeEqual('secret', 'secret1'), false);
  assert.equal(safeEqual('', ''), true);
});

test('randomToken is url-safe and carries the requested entropy', () => {
  const t = randomToken();
  assert.match(t, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(t, randomToken());
  assert.equal(Buffer.from(randomToken(16), 'base64url').length, 16);
});

test('hashSecret is salted, verifies the right secret and refuses others', async () => {
  const a = await hashSecret('correct horse');
  const b = await hashSecret('correct horse');
  assert.notEqual(a, b);
  assert.match(a, /^scrypt\$32768\$8\$1\$/);
  assert.ok(!a.includes('correct horse'));
  assert.equal(await verifySecret('correct horse', a), true);
  assert.equal(await verifySecret('correct horsf', a), false);
  assert.equal(await verifySecret('x', 'not-a-hash'), false);
  assert.equal(await verifySecret('x', 'scrypt$999999999$8$1$AA$AA'), false);
  assert.equal(needsRehash(a), false);
  assert.equal(needsRehash('scrypt$16384$8$1$AA$AA'), true);
});

test('seal encrypts with AES-256-GCM and detects tampering, wrong keys and wrong context', () => {
  const key = randomBytes(32);
  const sealed = seal(key, 'postgres://user:pw@host/db', 'source:1');
  assert.ok(!sealed.includes('pw@host'));
  assert.notEqual(sealed, seal(key, 'postgres://user:pw@host/db', 'source:1'));
  assert.equal(openSealedString(key, sealed, 'source:1'), 'postgres://user:pw@host/db');
  // GCM's tag check refuses the wrong key, the wrong context and a changed byte alike (nothing is decrypted).
  const unauthenticated = { name: 'Error', message: 'Unsupported state or unable to authenticate data' };
  assert.throws(() => openSealedString(randomBytes(32), sealed, 'source:1'), unauthenticated);
  assert.throws(() => openSealedString(key, sealed, 'source:2'), unauthenticated);
  const parts = sealed.split('.');
  const data = Buffer.from(parts[3]!, 'base64url');
  data[0] = data[0]! ^ 1;
  assert.throws(
    () => openSealedString(key, [parts[0], parts[1], parts[2], data.toString('base64url')].join('.'), 'source:1'),
    unauthenticated,
  );
  assert.throws(() => openSealedString(key, 'garbage', 'source:1'), {
    name: 'Error',
    message: 'sealed value is malformed',
  });
});

test('seal never reuses an IV, across the refills of its IV pool', () => {
  const key = randomBytes(32);
  const ivs = new Set<string>();
  // The pool holds 1,024 IVs: 3,000 seals cross two refills.
  for (let i = 0; i < 3000; i++) {
    const sealed = seal(key, 'same plaintext', 'same context');
    ivs.add(sealed.split('.')[1]!);
    assert.equal(openSealedString(key, sealed, 'same context'), 'same plaintext');
  }
  assert.equal(ivs.size, 3000);
});
