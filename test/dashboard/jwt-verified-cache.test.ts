import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jwtKeys, signAccessToken, verifyAccessToken } from '../../src/dashboard/auth/jwt.ts';

// Access tokens are verified once per process and then recognised (issue 33): what a token is accepted as must not
// change. An expired token stays refused even though it was verified before; a tampered one is never recognised.

const user = { id: 7, email: 'a@example.test', role: 'editor' as const, tenantId: 3 };

test('a verified token is recognised until it expires, then refused', async () => {
  const keys = jwtKeys('k'.repeat(40), Buffer.alloc(32));
  const now = Math.floor(Date.now() / 1000);
  // Two seconds from the start of this second: at least one left, however late in its second the test began.
  const token = await signAccessToken(keys, user, 2, now);
  const first = await verifyAccessToken(keys, token);
  assert.equal(first?.uid, 7);
  assert.deepEqual(await verifyAccessToken(keys, token), first);
  while (Date.now() / 1000 < now + 2) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await verifyAccessToken(keys, token), undefined);
});

test('another key, or a token changed after it was verified, is refused', async () => {
  const keys = jwtKeys('k'.repeat(40), Buffer.alloc(32));
  const token = await signAccessToken(keys, user, 900);
  assert.ok(await verifyAccessToken(keys, token));
  assert.equal(await verifyAccessToken(jwtKeys('o'.repeat(40), Buffer.alloc(32)), token), undefined);
  const [h, p, sig] = token.split('.');
  const tampered = `${h}.${p}.${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`;
  assert.equal(await verifyAccessToken(keys, tampered), undefined);
});
