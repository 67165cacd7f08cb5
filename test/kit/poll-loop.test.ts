import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createOutageLog } from '../../src/kit/outage-log.ts';
import { loopReport, pollLoop, type LoopReport } from '../../src/kit/poll-loop.ts';
import { waitFor } from '../support/wait.ts';

const failOnError: LoopReport = { failed: (err) => assert.fail(String(err)), succeeded() {} };

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
    failOnError,
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
    { failed() {}, succeeded() {} },
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
    failOnError,
    { startNow: true },
  );
  const lazy = pollLoop(
    600_000,
    async () => {
      later++;
      return false;
    },
    failOnError,
  );
  try {
    await waitFor('the first look', () => now === 1, 1_000);
    assert.equal(later, 0);
  } finally {
    await eager.stop();
    await lazy.stop();
  }
});

test('a database outage met by the loops is logged once by the outage log, other errors each time; a pass that goes through logs its end', async () => {
  const lines: Record<string, any>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const outage = createOutageLog(log);
  // What pg throws when the server drops the connection.
  const gone = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
  let fail: (() => Error) | undefined = gone;
  let passes = 0;
  const pass = async () => {
    passes++;
    if (fail) throw fail();
    return false;
  };
  // Two loops, as a service runs several: the outage is still one line.
  const loops = [
    pollLoop(10, pass, loopReport(log, 'deliveries could not be read', outage)),
    pollLoop(10, pass, loopReport(log, 'mails could not be read', outage)),
  ];
  const messages = () => lines.map((l) => l.msg as string);
  try {
    await waitFor('ten failed passes', () => passes >= 10, 2_000);
    assert.deepEqual(messages(), ['database unavailable: answering 503 with Retry-After until it is back']);
    assert.equal(lines[0]!.level, 50);
    assert.equal(lines[0]!.err.message, 'Connection terminated unexpectedly');

    fail = undefined;
    await waitFor('the end of the outage', () => messages().includes('database available again'), 2_000);
    const seen = passes;
    await waitFor('more passes', () => passes >= seen + 4, 2_000);
    assert.deepEqual(messages().slice(1), ['database available again']);
    assert.equal(lines[1]!.level, 40);
    assert.ok(lines[1]!.failures >= 10, JSON.stringify(lines[1]));

    // Anything else is not an outage: a line each time, with the loop's words.
    fail = () => new Error('column "x" does not exist');
    const before = lines.length;
    await waitFor('failures of another kind', () => lines.length >= before + 4, 2_000);
    assert.ok(
      lines.slice(before).every((l) => l.level === 50 && /^(deliveries|mails) could not be read$/.test(l.msg)),
      JSON.stringify(lines.slice(before)),
    );
    assert.equal(outage.down, false);
  } finally {
    await Promise.all(loops.map((l) => l.stop()));
  }
});
