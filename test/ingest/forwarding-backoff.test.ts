import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import {
  createDestination,
  deadLetters,
  destination,
  FAST_FORWARDING,
  sendEvents,
  waitFor,
} from './forwarding-helpers.ts';
import { startMixpanel, type MixpanelStandIn } from '../support/vendors/mixpanel.ts';
import type { Received } from '../support/vendors/stand-in.ts';

/** Short first delays but the production ceiling: a backoff that followed the wrong count would show at once. */
const BACKOFF = {
  ...FAST_FORWARDING,
  INGEST_FORWARDING_RETRY_BASE_MS: '20',
  INGEST_FORWARDING_RETRY_MAX_MS: '600000',
  INGEST_FORWARDING_MAX_ATTEMPTS: '1000',
  INGEST_FORWARDING_DEAD_LETTER_AFTER_MS: '3600000',
};

let h: IngestHarness;
let mixpanel: MixpanelStandIn;

before(async () => {
  h = await startIngest(BACKOFF, 'fwdbackoff');
  mixpanel = await startMixpanel('mp_backoff');
});

after(async () => {
  await h.close();
  await mixpanel.close();
});

test('a poisoned event the vendor keeps refusing does not hold back a stream of good events through a short outage', async () => {
  const { projectId, key } = await h.project();
  const dest = await createDestination(h, projectId, {
    name: 'mixpanel',
    kind: 'mixpanel',
    base_url: mixpanel.url,
    credentials: { project_token: 'mp_backoff' },
  });
  // Mixpanel refuses a placeholder distinct id by name, every time: this event can never be delivered.
  const poison = makeEvent(projectId, { 'user.id': 'anonymous' });
  const carriesPoison = (r: Received) => r.body.toString().includes(poison.event_id as string);
  // Its next delay after these is at least 20 ms × 2^8 ≈ 5 s: far longer than the good events need, even on a loaded machine.
  const REFUSALS = 9;

  const good: Record<string, unknown>[] = [];
  const sending: Promise<void>[] = [];
  const sendGood = () => {
    const event = makeEvent(projectId, { 'user.id': `user-${good.length}` });
    good.push(event);
    sending.push(sendEvents(h, key, [event]));
  };
  let outageLeft = 0;
  let poisonRequests = 0;
  const vendor = mixpanel.answerFor;
  mixpanel.answerFor = (request) => {
    if (carriesPoison(request)) poisonRequests++;
    // When the poison comes up again after its refusals, the vendor has an outage of three requests, and each of them
    // is followed by one more good event: a stream that keeps arriving while the vendor is down.
    if (poisonRequests === REFUSALS + 1 && carriesPoison(request)) outageLeft = 3;
    if (outageLeft > 0) {
      outageLeft--;
      sendGood();
      return { status: 503, body: { error: 'service unavailable' } };
    }
    return vendor(request);
  };

  await sendEvents(h, key, [poison]);
  await waitFor(
    'all good events delivered',
    () => good.length === 3 && good.every((e) => mixpanel.events.has(e.event_id as string)),
    40_000,
  );
  await Promise.all(sending);
  // Every good event went through while the poison waited out its own, longer delay: it was not sent again.
  assert.equal(poisonRequests, REFUSALS + 1);
  assert.equal(mixpanel.events.has(poison.event_id as string), false);
  // The vendor keeps an event before ingest settles its outbox entry: wait for the settling, then only the poison is left.
  await waitFor('the good events settled', async () => (await destination(h, dest.id)).pending === 1);
  assert.deepEqual(await deadLetters(h, dest.id), []);
  const row = await h.sql.query(
    "SELECT failures, not_before < now() + interval '1 second' AS short_pause FROM ingest.destinations WHERE id = $1",
    [dest.id],
  );
  // The outage is over: the destination's own count of failed rounds restarted at its next delivery.
  assert.deepEqual(row.rows[0], { failures: 0, short_pause: true });
});
