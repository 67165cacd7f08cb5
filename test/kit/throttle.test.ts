import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connectRedis } from '../../src/kit/redis.ts';
import {
  memoryThrottle,
  redisThrottle,
  withFallback,
  type Throttle,
  type ThrottleOptions,
} from '../../src/kit/throttle.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = await connectRedis(REDIS_URL);
after(() => redis.quit());

const kinds: [string, (o: ThrottleOptions) => Throttle][] = [
  ['memory', (o) => memoryThrottle(o)],
  ['redis', (o) => redisThrottle(redis, { ...o, prefix: `test:throttle:${randomBytes(6).toString('hex')}:` })],
];

for (const [kind, make] of kinds) {
  describe(`throttle in ${kind}`, () => {
    test('free failures pass, then waits double per key', async () => {
      const t = make({ freeFailures: 2 });
      await t.fail(['a']);
      assert.equal(await t.waitSeconds(['a']), 0, 'one failure is free');
      await t.fail(['a']);
      assert.equal(await t.waitSeconds(['a']), 1, 'the second failure blocks 1 s');
      await t.fail(['a']);
      assert.equal(await t.waitSeconds(['a']), 2);
      await t.fail(['a']);
      assert.equal(await t.waitSeconds(['a']), 4);
      assert.equal(await t.waitSeconds(['b']), 0, 'other keys are unaffected');
      assert.equal(await t.waitSeconds(['b', 'a']), 4, 'the longest wait of the keys counts');
    });

    test('a success clears the key; waits are capped', async () => {
      const t = make({ freeFailures: 0, maxWaitMs: 3000 });
      for (let i = 0; i < 10; i++) await t.fail(['acct', 'addr']);
      assert.equal(await t.waitSeconds(['acct']), 3);
      await t.succeed('acct');
      assert.equal(await t.waitSeconds(['acct']), 0);
      assert.equal(await t.waitSeconds(['addr']), 3, 'only the named key is cleared');
    });

    test('a key is forgotten after a quiet period', async () => {
      const t = make({ freeFailures: 1, forgetAfterMs: 300 });
      await t.fail(['k']);
      assert.ok((await t.waitSeconds(['k'])) > 0);
      await new Promise((r) => setTimeout(r, 1300));
      await t.fail(['k']);
      assert.equal(await t.waitSeconds(['k']), 1, 'counting started over');
    });
  });
}

test("two instances sharing Redis see each other's failures", async () => {
  const prefix = `test:throttle:${randomBytes(6).toString('hex')}:`;
  const other = await connectRedis(REDIS_URL);
  try {
    const a = redisThrottle(redis, { freeFailures: 1, prefix });
    const b = redisThrottle(other, { freeFailures: 1, prefix });
    await a.fail(['shared']);
    assert.equal(await b.waitSeconds(['shared']), 1);
  } finally {
    await other.quit();
  }
});

test('an unreachable Redis is refused at connection, with the address and no password', async () => {
  await assert.rejects(
    connectRedis('redis://:s3cret@127.0.0.1:1', 500),
    (e: Error) => /did not answer within 500 ms/.test(e.message) && !e.message.includes('s3cret'),
  );
});

test('when Redis goes away the throttle keeps counting in memory', async () => {
  const client = await connectRedis(REDIS_URL);
  const warnings: unknown[] = [];
  const t = withFallback(
    redisThrottle(client, { freeFailures: 1, prefix: `test:throttle:${randomBytes(6).toString('hex')}:` }),
    memoryThrottle({ freeFailures: 1 }),
    { warn: (o: unknown) => void warnings.push(o) } as never,
  );
  await t.fail(['k']);
  assert.equal(await t.waitSeconds(['k']), 1);
  client.disconnect();
  await t.fail(['k']);
  assert.equal(await t.waitSeconds(['k']), 2, 'memory saw both failures');
  assert.ok(warnings.length > 0, 'the outage is logged');
});
