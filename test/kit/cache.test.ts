import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createCache } from '../../src/kit/cache.ts';
import { redisInvalidationBus } from '../../src/kit/invalidation.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = { warn() {}, info() {} };

/** A source whose values the test changes, counting its reads. */
function source(initial: Record<string, string | undefined>) {
  const values = { ...initial };
  let reads = 0;
  return {
    values,
    reads: () => reads,
    async load(key: string) {
      reads++;
      // Read at once, answered a moment later: a change made meanwhile is not in this answer.
      const value = values[key];
      await new Promise((resolve) => setImmediate(resolve));
      return value;
    },
  };
}

test('read-through with expiry: a hit costs no read, concurrent misses share one, unknown values are not kept when told', async () => {
  const s = source({ a: '1' });
  const cache = createCache<string | undefined>({
    name: 'c',
    load: s.load,
    ttlMs: 60_000,
    maxEntries: 100,
    keep: (v) => v !== undefined,
  });
  assert.deepEqual(await Promise.all([cache.get('a'), cache.get('a'), cache.get('a')]), ['1', '1', '1']);
  assert.equal(s.reads(), 1);
  assert.equal(await cache.get('a'), '1');
  assert.equal(s.reads(), 1);
  assert.equal(await cache.get('new'), undefined);
  s.values.new = '2';
  assert.equal(await cache.get('new'), '2', 'an unknown key is read again next time');
  const quick = createCache<string | undefined>({ name: 'q', load: s.load, ttlMs: 0, maxEntries: 100 });
  await quick.get('a');
  await quick.get('a');
  assert.equal(s.reads(), 5, 'ttl 0 reads every time');
});

test('an invalidation drops the key at once, and a read already under way does not put the old value back', async () => {
  const s = source({ a: 'old' });
  const cache = createCache<string | undefined>({ name: 'c', load: s.load, ttlMs: 60_000, maxEntries: 100 });
  assert.equal(await cache.get('a'), 'old');
  s.values.a = 'new';
  assert.equal(await cache.get('a'), 'old', 'cached');
  cache.invalidate('a');
  assert.equal(await cache.get('a'), 'new');
  s.values.a = 'newer';
  cache.invalidate();
  const underWay = cache.get('a');
  s.values.a = 'revoked';
  cache.invalidate('a');
  assert.equal(await underWay, 'newer', 'the caller that asked before gets what was read');
  assert.equal(await cache.get('a'), 'revoked', 'but it was not kept');
});

// The timeout only turns a lost message into a failure instead of a hang.
test('with Redis, an invalidation on one instance reaches the others at once', { timeout: 10_000 }, async () => {
  const service = `test-${randomBytes(5).toString('hex')}`;
  const busA = await redisInvalidationBus({ url: REDIS_URL, service, log });
  const busB = await redisInvalidationBus({ url: REDIS_URL, service, log });
  const other = await redisInvalidationBus({ url: REDIS_URL, service: `${service}-other`, log });
  try {
    const s = source({ key: 'live' });
    const a = createCache<string | undefined>({
      name: 'keys',
      load: s.load,
      ttlMs: 300_000,
      maxEntries: 100,
      bus: busA,
    });
    const b = createCache<string | undefined>({
      name: 'keys',
      load: s.load,
      ttlMs: 300_000,
      maxEntries: 100,
      bus: busB,
    });
    const c = createCache<string | undefined>({
      name: 'keys',
      load: s.load,
      ttlMs: 300_000,
      maxEntries: 100,
      bus: other,
    });
    assert.equal(await a.get('key'), 'live');
    assert.equal(await b.get('key'), 'live');
    assert.equal(await c.get('key'), 'live');
    s.values.key = 'revoked';
    // Wait for instance B's bus to hear the message rather than for time to pass: a handler subscribed after B's cache
    // runs after the cache's own, and another Redis connection's copy of the message may arrive before or after B's.
    const heardByB = new Promise<string | undefined>((resolve) => busB.subscribe('keys', resolve));
    a.invalidate('key');
    assert.equal(await a.get('key'), 'revoked', 'the instance that changed it sees it at once');
    assert.equal(await heardByB, 'key');
    assert.equal(await b.get('key'), 'revoked', 'the other instance dropped its copy long before its 5-minute expiry');
    assert.equal(await c.get('key'), 'live', "another service's caches are not touched");
  } finally {
    await busA.close();
    await busB.close();
    await other.close();
  }
});
