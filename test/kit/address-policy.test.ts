import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createAddressPolicy,
  LOOKUP_TIMEOUT_MS,
  RefusedDestinationError,
  type HostLookup,
} from '../../src/kit/outbound/address-policy.ts';
import { guardedPost, OutboundError } from '../../src/kit/outbound/post.ts';

/**
 * The policy's name lookups have a time limit of their own (src/kit/outbound/address-policy.ts), so a resolver that
 * never answers fails the host as unresolved instead of holding whoever asked. The lookups here stand in for the
 * system resolver: one that never settles is a resolver whose server does not answer. Each test has a time limit of
 * its own, so code without the lookup's limit fails here instead of hanging the run.
 */

const LIMIT = { timeout: 5_000 };
const silent: HostLookup = () => new Promise(() => {});
const answering =
  (address: string, afterMs = 0): HostLookup =>
  () =>
    new Promise((resolve) => setTimeout(() => resolve([{ address, family: address.includes(':') ? 6 : 4 }]), afterMs));

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('a lookup that does not answer in time fails the host as unresolved, naming the limit', LIMIT, async () => {
  const policy = createAddressPolicy([], { lookup: silent, lookupTimeoutMs: 200 });
  const before = timers();
  const started = performance.now();
  await assert.rejects(policy.resolve('Slow.Example.'), (err: unknown) => {
    assert.ok(err instanceof RefusedDestinationError);
    assert.equal(err.message, 'the host slow.example did not resolve within 0.2 s');
    assert.equal(err.host, 'slow.example');
    assert.equal(err.unresolved, true);
    return true;
  });
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 190 && elapsed < 1_500, `failed after ${Math.round(elapsed)} ms, the limit being 200 ms`);
  assert.equal(timers(), before, 'no timer is left behind');
});

test('the limit is LOOKUP_TIMEOUT_MS unless the policy is given another', LIMIT, async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let settled = false;
  const pending = createAddressPolicy([], { lookup: silent })
    .resolve('slow.example')
    .finally(() => {
      settled = true;
    });
  t.mock.timers.tick(LOOKUP_TIMEOUT_MS - 1);
  await new Promise(setImmediate);
  assert.equal(settled, false);
  t.mock.timers.tick(1);
  await assert.rejects(pending, {
    message: `the host slow.example did not resolve within ${LOOKUP_TIMEOUT_MS / 1000} s`,
    unresolved: true,
  });
});

test('a lookup that answers in time is checked as before, and its timer cleared', LIMIT, async () => {
  const before = timers();
  // A limit far beyond the test's own: a timer left running would show in the count below.
  const slowLimit = { lookupTimeoutMs: 60_000 };
  const pub = createAddressPolicy([], { ...slowLimit, lookup: answering('93.184.216.34', 20) });
  assert.deepEqual(await pub.resolve('site.example'), { address: '93.184.216.34', family: 4 });
  assert.equal(timers(), before);

  const internal = createAddressPolicy([], { ...slowLimit, lookup: answering('10.0.0.7') });
  await assert.rejects(internal.resolve('intranet.example'), (err: unknown) => {
    assert.ok(err instanceof RefusedDestinationError && !err.unresolved);
    assert.equal(err.message, 'refused: intranet.example resolves to 10.0.0.7 is a private address');
    return true;
  });
  assert.equal(timers(), before);

  const failing = createAddressPolicy([], {
    ...slowLimit,
    lookup: async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    },
  });
  await assert.rejects(failing.resolve('gone.example'), {
    message: 'the host gone.example could not be resolved',
    unresolved: true,
  });
  const empty = createAddressPolicy([], { ...slowLimit, lookup: async () => [] });
  await assert.rejects(empty.resolve('empty.example'), { message: 'the host empty.example has no address' });
  assert.equal(timers(), before);
});

test('addresses written as such are not looked up, so no limit applies to them', LIMIT, async () => {
  const policy = createAddressPolicy(['127.0.0.1'], { lookup: silent, lookupTimeoutMs: 10 });
  assert.deepEqual(await policy.resolve('127.0.0.1'), { address: '127.0.0.1', family: 4 });
  await assert.rejects(policy.resolve('[::1]'), /refused: ::1 is a loopback address/);
});

test(
  'a guarded POST to a host that does not resolve in time fails as unreachable, before its own limit',
  LIMIT,
  async () => {
    const policy = createAddressPolicy([], { lookup: silent, lookupTimeoutMs: 200 });
    const started = performance.now();
    await assert.rejects(
      guardedPost({ url: 'https://hooks.example/in', headers: {}, body: '{}' }, policy, {
        timeoutMs: 4_000,
        userAgent: 'platform-test',
      }),
      (err: unknown) => {
        // Not refused: webhook deliveries and notices try an unreachable receiver again later.
        assert.ok(err instanceof OutboundError && !err.refused && !err.stopped);
        assert.equal(err.message, 'the host hooks.example did not resolve within 0.2 s');
        return true;
      },
    );
    assert.ok(performance.now() - started < 1_500);
  },
);
