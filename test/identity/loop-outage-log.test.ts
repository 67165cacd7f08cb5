import { test } from 'node:test';
import { assertOneOutage, loopOutage } from '../support/loop-outage.ts';

/**
 * Identity's three polling loops (webhook deliveries, queued mails, back-channel logouts) through a database outage
 * with no request meanwhile: they used to log the error with its stack at every poll, each of them (~190 KB a minute
 * at the default second).
 */
test('a database outage met only by the polling loops is one error line, and one line when it ends', {
  timeout: 120_000,
}, async () => {
  const pollMs = 100;
  const outage = await loopOutage(
    'identity',
    (url) => ({ IDENTITY_DATABASE_URL: url, IDENTITY_WEBHOOK_POLL_MS: String(pollMs) }),
    { downMs: 20 * pollMs, backMs: 20_000 },
  );
  assertOneOutage(outage, 20);
});
