import { test } from 'node:test';
import { assertOneOutage, loopOutage } from '../support/loop-outage.ts';

/**
 * The dashboard's background workers (alert evaluator, notification outbox, subscriptions) through a database outage
 * with no request meanwhile: each used to log the error with its stack at every tick.
 */
test('a database outage met only by the background workers is one error line, and one line when it ends', {
  timeout: 120_000,
}, async () => {
  const tickMs = 100;
  const outage = await loopOutage(
    'dashboard',
    (url) => ({ DATABASE_URL: url, DASHBOARD_SCHEDULER_TICK_MS: String(tickMs) }),
    { downMs: 20 * tickMs, backMs: 20_000 },
  );
  assertOneOutage(outage, 20);
});
