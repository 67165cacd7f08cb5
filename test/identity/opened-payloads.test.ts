import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { seal } from '../../src/kit/crypto.ts';
import { OpenedPayloads } from '../../src/identity/oidc/opened-payloads.ts';

test('a remembered opening is used only with the key and context it was opened with; the oldest is let go first', () => {
  const key = randomBytes(32);
  const opened = new OpenedPayloads(2);
  const a = seal(key, '{"a":1}', 'ctx.a');
  assert.equal(opened.open(key, a, 'ctx.a'), '{"a":1}');
  assert.equal(opened.open(key, a, 'ctx.a'), '{"a":1}', 'again, remembered');
  assert.throws(() => opened.open(key, a, 'ctx.b'), 'a payload copied under another context does not open');
  assert.throws(() => opened.open(randomBytes(32), a, 'ctx.a'), 'nor with another key');
  assert.throws(() => opened.open(key, `${a.slice(0, -2)}AA`, 'ctx.a'), 'a changed ciphertext fails its tag');

  const b = seal(key, '{"b":2}', 'ctx.b');
  const c = seal(key, '{"c":3}', 'ctx.c');
  assert.equal(opened.open(key, b, 'ctx.b'), '{"b":2}');
  assert.equal(opened.open(key, c, 'ctx.c'), '{"c":3}');
  assert.equal(opened.open(key, a, 'ctx.a'), '{"a":1}', 'opened again once let go');
});
