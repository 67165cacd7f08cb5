import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CACHE_MAX_ENTRIES, runKey, SharedResults } from '../../src/dashboard/sql/shared-results.ts';
import type { ExecuteResult } from '../../src/dashboard/sql/execute.ts';

/** The single flight and the cache's rules, on a clock the test moves (the database trips are widget-cache.test.ts's). */
describe('shared widget results', () => {
  const rows = (n: number): ExecuteResult => ({
    columns: [{ name: 'n', type: 'int4', nullable: true }],
    rows: Array.from({ length: n }, (_, i) => ({ n: i })),
    rowCount: n,
    truncated: false,
    executionTimeMs: 1,
  });

  test('the key is the source and its version, the statement, the values (in any order), the row cap and the role', () => {
    const base = {
      sourceId: 1,
      sourceVersion: 1,
      query: 'SELECT :a, :b',
      parameters: { a: 1, b: 2 },
      maxRows: 10,
      role: 'viewer',
    };
    assert.equal(runKey(base), runKey({ ...base, parameters: { b: 2, a: 1 } }));
    for (const change of [
      { sourceId: 2 },
      { sourceVersion: 2 },
      { query: 'SELECT :a,  :b' },
      { parameters: { a: 1, b: '2' } },
      { maxRows: 11 },
      { role: 'editor' },
    ])
      assert.notEqual(runKey(base), runKey({ ...base, ...change }), JSON.stringify(change));
  });

  test('kept rows answer until the cache time has passed, then the next view reads again', async () => {
    let now = 1_000_000;
    const shared = new SharedResults(undefined, () => now);
    let trips = 0;
    const execute = async () => {
      trips++;
      return rows(trips);
    };
    assert.equal((await shared.run('k', { ttlMs: 60_000 }, execute)).served, 'database');
    now += 59_999;
    const kept = await shared.run('k', { ttlMs: 60_000 }, execute);
    assert.equal(kept.served, 'cache');
    assert.equal(kept.readAt.getTime(), 1_000_000);
    now += 1;
    assert.equal((await shared.run('k', { ttlMs: 60_000 }, execute)).served, 'database');
    assert.equal(trips, 2);
    // A widget without a cache time never reads kept rows, and leaves those another widget of the same SQL keeps.
    assert.equal((await shared.run('k', { ttlMs: 0 }, execute)).served, 'database');
    assert.equal(trips, 3);
    const other = await shared.run('k', { ttlMs: 60_000 }, execute);
    assert.equal(other.served, 'cache');
    assert.equal(other.readAt.getTime(), now, 'the rows kept are those read at the last run that kept them');
  });

  test('a failure is given to every caller of the run and never kept', async () => {
    const shared = new SharedResults();
    let trips = 0;
    let fail!: (e: Error) => void;
    const execute = () => {
      trips++;
      return trips === 1 ? new Promise<ExecuteResult>((_, reject) => (fail = reject)) : Promise.resolve(rows(1));
    };
    const a = shared.run('k', { ttlMs: 60_000 }, execute);
    const b = shared.run('k', { ttlMs: 60_000 }, execute);
    fail(new Error('the database went away'));
    await assert.rejects(a, /went away/);
    await assert.rejects(b, /went away/);
    assert.equal((await shared.run('k', { ttlMs: 60_000 }, execute)).served, 'database');
    assert.equal(trips, 2);
  });

  test('the run is cancelled only once every caller has gone', async () => {
    const shared = new SharedResults();
    let runSignal!: AbortSignal;
    let finish!: (r: ExecuteResult) => void;
    const execute = (signal: AbortSignal) => {
      runSignal = signal;
      return new Promise<ExecuteResult>((resolve) => (finish = resolve));
    };
    const first = new AbortController();
    const second = new AbortController();
    const a = shared.run('k', { ttlMs: 0, signal: first.signal }, execute);
    const b = shared.run('k', { ttlMs: 0, signal: second.signal }, execute);
    first.abort();
    assert.equal(runSignal.aborted, false, 'one caller is still waiting');
    second.abort();
    assert.equal(runSignal.aborted, true, 'nobody is waiting any more');
    finish(rows(1));
    await Promise.all([a, b]);
  });

  test('the cache is bounded: the least recently used results go first', async () => {
    const shared = new SharedResults();
    const execute = async () => rows(1);
    for (let i = 0; i <= CACHE_MAX_ENTRIES; i++) {
      await shared.run(`k${i}`, { ttlMs: 60_000 }, execute);
      if (i === 0) continue;
      // k0 is used again each time, so it stays while the others come and go.
      assert.equal((await shared.run('k0', { ttlMs: 60_000 }, execute)).served, 'cache');
    }
    assert.equal((await shared.run('k1', { ttlMs: 60_000 }, execute)).served, 'database', 'k1 was the oldest');
  });
});
