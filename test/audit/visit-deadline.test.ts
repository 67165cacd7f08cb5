import { test } from 'node:test';
import assert from 'node:assert/strict';
import { visitDeadline } from '../../src/audit/engine/page-bounds.ts';

// A page is failed "over the time limit" only once the limit has passed. A Node timer counts whole milliseconds of a
// truncated clock and can fire up to 1 ms early; a CI run once recorded a 20 s limit reached after 19,999 ms.

test('the time limit is never reached before it has passed', async () => {
  const early: string[] = [];
  for (let i = 0; i < 300; i++) {
    const started = performance.now();
    const deadline = visitDeadline(3, undefined, started);
    assert.equal(await deadline.stopped, 'timeout');
    const took = performance.now() - started;
    deadline.clear();
    if (took < 3) early.push(took.toFixed(3));
  }
  assert.deepEqual(early, [], 'visits stopped before their 3 ms limit (ms)');
});

test('a cancellation stops the visit at once, and a cleared deadline never fires', async () => {
  const controller = new AbortController();
  const deadline = visitDeadline(60_000, controller.signal);
  controller.abort();
  assert.equal(await deadline.stopped, 'cancelled');
  deadline.clear();

  const cleared = visitDeadline(20);
  cleared.clear();
  const outcome = await Promise.race([cleared.stopped, new Promise((r) => setTimeout(() => r('still waiting'), 100))]);
  assert.equal(outcome, 'still waiting');
});
