import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBatcher } from '../../src/kit/batcher.ts';

/** A run function that records its batches and answers when released, so a test controls what is in flight. */
function recorder<I>(answer: (item: I) => unknown = (i) => i) {
  const batches: { items: I[]; group: string }[] = [];
  const gates: (() => void)[] = [];
  let hold = false;
  return {
    batches,
    holdAll(on: boolean) {
      hold = on;
    },
    release() {
      for (const g of gates.splice(0)) g();
    },
    inFlight: () => gates.length,
    async run(items: I[], group: string) {
      batches.push({ items: [...items], group });
      if (hold) await new Promise<void>((resolve) => gates.push(resolve));
      return items.map(answer);
    },
  };
}

test('items submitted in one turn of the event loop go out together, up to maxBatch, each caller with its own result', async () => {
  const r = recorder<number>((i) => i * 10);
  const b = createBatcher<number, unknown>({ run: r.run, maxInFlight: 2, maxBatch: 4, gather: 'tick' });
  const results = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => b.submit(i)));
  assert.deepEqual(results, [10, 20, 30, 40, 50, 60, 70]);
  assert.deepEqual(
    r.batches.map((x) => x.items),
    [
      [1, 2, 3, 4],
      [5, 6, 7],
    ],
  );
});

test('while maxInFlight batches are out, new items wait and gather into the next batch', async () => {
  const r = recorder<number>();
  r.holdAll(true);
  const b = createBatcher<number, unknown>({ run: r.run, maxInFlight: 1, maxBatch: 100, gather: 'tick' });
  const first = b.submit(1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(r.inFlight(), 1);
  const later = [2, 3, 4].map((i) => b.submit(i));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(r.batches.length, 1, 'nothing more goes out while the slot is taken');
  r.holdAll(false);
  r.release();
  assert.deepEqual(await Promise.all([first, ...later]), [1, 2, 3, 4]);
  assert.deepEqual(
    r.batches.map((x) => x.items),
    [[1], [2, 3, 4]],
  );
});

test('the same key waiting twice shares one place and one result; once sent, a new ask goes in a new batch', async () => {
  const r = recorder<string>((s) => ({ s }));
  r.holdAll(true);
  const b = createBatcher<string, unknown>({ run: r.run, maxInFlight: 4, maxBatch: 10, gather: 'tick', key: (s) => s });
  const x = b.submit('a');
  const y = b.submit('a');
  const z = b.submit('b');
  await new Promise((resolve) => setImmediate(resolve));
  const afterSent = b.submit('a');
  await new Promise((resolve) => setImmediate(resolve));
  r.holdAll(false);
  r.release();
  const [rx, ry, rz, ra] = await Promise.all([x, y, z, afterSent]);
  assert.equal(rx, ry, 'one result for both');
  assert.deepEqual(rz, { s: 'b' });
  assert.notEqual(ra, rx, 'asked after the first batch was sent: answered by a later one');
  assert.deepEqual(
    r.batches.map((x) => x.items),
    [['a', 'b'], ['a']],
  );
});

test('weight bounds a batch (an item is never split) and the weight waiting (back-pressure)', async () => {
  const r = recorder<number>();
  r.holdAll(true);
  const b = createBatcher<number, unknown>({
    run: r.run,
    maxInFlight: 1,
    maxBatch: Infinity,
    gather: 'none',
    weight: (n) => n,
    maxWeight: 10,
    maxPendingWeight: 25,
    overloaded: () => new Error('overloaded'),
  });
  const lone = b.submit(12);
  assert.equal(r.batches.length, 1, 'gather none: sent at once, heavier than maxWeight but alone');
  const waiting = [4, 5, 3, 8].map((n) => b.submit(n));
  assert.equal(b.pendingWeight(), 20);
  await assert.rejects(b.submit(6), /overloaded/);
  r.holdAll(false);
  r.release();
  await Promise.all([lone, ...waiting]);
  assert.deepEqual(
    r.batches.map((x) => x.items),
    [[12], [4, 5], [3], [8]],
  );
  assert.deepEqual(
    r.batches.flatMap((x) => x.items),
    [12, 4, 5, 3, 8],
    'in arrival order',
  );
});

test('a failed batch is retried item by item so one bad item fails only its caller, unless the failure is for all', async () => {
  const calls: number[][] = [];
  const b = createBatcher<number, unknown>({
    maxInFlight: 1,
    maxBatch: 10,
    gather: 'tick',
    retryAlone: (err) => (err as Error).message !== 'database away',
    async run(items) {
      calls.push(items);
      if (items.includes(0)) throw new Error('database away');
      if (items.includes(13)) throw new Error('bad item 13');
      return items;
    },
  });
  const settled = await Promise.allSettled([1, 13, 2].map((i) => b.submit(i)));
  assert.deepEqual(
    settled.map((s) => s.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(calls, [[1, 13, 2], [1], [13], [2]]);
  calls.length = 0;
  const all = await Promise.allSettled([5, 0, 6].map((i) => b.submit(i)));
  assert.deepEqual(
    all.map((s) => s.status),
    ['rejected', 'rejected', 'rejected'],
  );
  assert.deepEqual(calls, [[5, 0, 6]], 'not retried one by one');
});

test('items of different groups never share a batch', async () => {
  const r = recorder<{ g: string; n: number }>((x) => x.n);
  const b = createBatcher<{ g: string; n: number }, unknown>({
    run: r.run,
    maxInFlight: 4,
    maxBatch: 10,
    gather: 'tick',
    group: (x) => x.g,
  });
  await Promise.all(
    [
      { g: 'a', n: 1 },
      { g: 'b', n: 2 },
      { g: 'a', n: 3 },
    ].map((x) => b.submit(x)),
  );
  assert.deepEqual(
    r.batches.map((x) => [x.group, x.items.map((i) => i.n)]),
    [
      ['a', [1, 3]],
      ['b', [2]],
    ],
  );
});

test('close() answers everything already submitted, then refuses new items', async () => {
  const r = recorder<number>();
  r.holdAll(true);
  const b = createBatcher<number, unknown>({
    run: r.run,
    maxInFlight: 1,
    maxBatch: 2,
    gather: 'none',
    closed: () => new Error('shutting down'),
  });
  const submitted = [1, 2, 3, 4, 5].map((i) => b.submit(i));
  let closed = false;
  const closing = b.close().then(() => {
    closed = true;
  });
  await assert.rejects(b.submit(6), /shutting down/);
  r.holdAll(false);
  r.release();
  await closing;
  assert.ok(closed);
  assert.deepEqual(await Promise.all(submitted), [1, 2, 3, 4, 5]);
});
