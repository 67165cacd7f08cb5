import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopOutage } from '../support/loop-outage.ts';

/**
 * Identity's three polling loops (webhook deliveries, queued mails, back-channel logouts) through a database outage
 * with no request meanwhile: they used to log the error with its stack at every poll, each of them (~190 KB a minute
 * at the default second).
 */
test('a database outage met only by the polling loops is one error line, and one line when it ends', {
  timeout: 120_000,
}, async () => {
  const pollMs = 100;
  const { during, after } = await loopOutage(
    'identity',
    (url) => ({ IDENTITY_DATABASE_URL: url, IDENTITY_WEBHOOK_POLL_MS: String(pollMs) }),
    { downMs: 20 * pollMs, backMs: 20_000 },
  );
  const errors = during.filter((l) => l.level >= 50);
  assert.equal(errors.length, 1, JSON.stringify(errors.map((l) => l.msg)));
  assert.match(errors[0]!.msg, /^database unavailable/);
  // Told by a loop's pass, since no request came.
  const back = after.filter((l) => l.msg === 'database available again');
  assert.equal(back.length, 1, 'no line said the database was back');
  assert.ok(back[0]!.failures >= 20, JSON.stringify(back[0]));
  assert.deepEqual(
    [...during, ...after].filter((l) => l.level >= 40 && l !== errors[0] && l !== back[0]),
    [],
    'nothing else at warning level or above',
  );
});
