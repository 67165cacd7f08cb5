import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LastUseWrites } from '../../src/identity/last-use.ts';

test('a credential use is written the first time, then at most once per interval, per credential', () => {
  const writes = new LastUseWrites(60_000);
  assert.equal(writes.due('a', 1_000), true, 'the first use');
  assert.equal(writes.due('a', 30_000), false, 'within the minute');
  assert.equal(writes.due('b', 30_000), true, 'another credential');
  assert.equal(writes.due('a', 60_999), false);
  assert.equal(writes.due('a', 61_000), true, 'a minute after the last write');
  assert.equal(writes.due('a', 61_500), false);
});
