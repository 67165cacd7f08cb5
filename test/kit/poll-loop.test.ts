import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollLoop } from '../../src/kit/poll-loop.ts';
import { waitFor } from '../support/wait.ts';

test('wake looks at once rather than at the next tick; a wake during a pass asks for one more after it', async () => {
  let passes = 0;
  let release = () => {};
  let gate: Promise<void> | undefined;
  const loop = pollLoop(
    600_000,
    async () => {
      passes++;
      await gate;
      return false;
    },
    (err) => assert.fail(String(err)),
  );
  try {
    loop.wake();
    await waitFor('a pass', () => passes === 1, 1_000);
    gate = new Promise<void>((resolve) => (release = resolve));
    loop.wake();
    await waitFor('the second pass', () => passes === 2, 1_000);
    // Woken while the pass is under way (it may have looked before the new work was there): one more follows it.
    loop.wake();
    loop.wake();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(passes, 2, 'never two passes at once');
    gate = undefined;
    release();
    await waitFor('the pass after it', () => passes === 3, 1_000);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(passes, 3, 'one more, however many wakes came meanwhile');
  } finally {
    await loop.stop();
  }
  loop.wake();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(passes, 3, 'a stopped loop does not wake');
});

test('stop waits for the pass in progress', async () => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let done = false;
  const loop = pollLoop(
    600_000,
    async () => {
      await gate;
      done = true;
      return false;
    },
    () => {},
  );
  loop.wake();
  const stopping = loop.stop();
  setTimeout(release, 50);
  await stopping;
  assert.equal(done, true);
});

test('startNow looks at once, without waiting a poll; without it the first look is a poll away', async () => {
  let now = 0;
  let later = 0;
  const eager = pollLoop(
    600_000,
    async () => {
      now++;
      return false;
    },
    (err) => assert.fail(String(err)),
    { startNow: true },
  );
  const lazy = pollLoop(
    600_000,
    async () => {
      later++;
      return false;
    },
    (err) => assert.fail(String(err)),
  );
  try {
    await waitFor('the first look', () => now === 1, 1_000);
    assert.equal(later, 0);
  } finally {
    await eager.stop();
    await lazy.stop();
  }
});
