import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import { createDestination, deadLetters, FAST_FORWARDING, sendEvents, waitFor } from './forwarding-helpers.ts';
import { startPostHog } from '../support/vendors/posthog.ts';
import { startSegment } from '../support/vendors/segment.ts';
import { startMixpanel } from '../support/vendors/mixpanel.ts';
import { startAmplitude } from '../support/vendors/amplitude.ts';
import type { StandIn } from '../support/vendors/stand-in.ts';

/** Every form of `event.timestamp` the validator accepts, with its instant worked out by hand. */
const FORMS: [string, number][] = [
  ['2025-11-22T10:00:00Z', Date.UTC(2025, 10, 22, 10, 0, 0)],
  ['2025-11-22T10:00:00-03', Date.UTC(2025, 10, 22, 13, 0, 0)],
  ['2025-11-22T10:00:00,5Z', Date.UTC(2025, 10, 22, 10, 0, 0, 500)],
  ['2025-11-22T10:00+02', Date.UTC(2025, 10, 22, 8, 0, 0)],
  ['2025-11-22T10:00Z', Date.UTC(2025, 10, 22, 10, 0, 0)],
  ['2025-11-22T10:00:00.123456789+05:30', Date.UTC(2025, 10, 22, 4, 30, 0, 123)],
  ['2025-11-22T10:00:00+0200', Date.UTC(2025, 10, 22, 8, 0, 0)],
  ['2025-11-22T10:00-0330', Date.UTC(2025, 10, 22, 13, 30, 0)],
  ['2025-11-22t10:00:00.1z', Date.UTC(2025, 10, 22, 10, 0, 0, 100)],
  ['2025-11-22T10:00:00,25-00:00', Date.UTC(2025, 10, 22, 10, 0, 0, 250)],
  ['2024-02-29T23:59:59.999+00', Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
  ['2025-01-01T00:30:00+01:00', Date.UTC(2024, 11, 31, 23, 30, 0)],
];

let h: IngestHarness;
const standIns: StandIn[] = [];

before(async () => {
  h = await startIngest(FAST_FORWARDING, 'fwdtime');
});

after(async () => {
  await h.close();
  await Promise.all(standIns.map((s) => s.close()));
});

interface Vendor {
  kind: string;
  start(): Promise<StandIn & { events: Map<string, Record<string, unknown>> }>;
  credentials: Record<string, string>;
  /** The instant the vendor received for the event, in epoch milliseconds. */
  received(event: Record<string, unknown>): number;
}

const VENDORS: Vendor[] = [
  {
    kind: 'posthog',
    start: () => startPostHog('phc_time'),
    credentials: { api_key: 'phc_time' },
    received: (e) => Date.parse(e.timestamp as string),
  },
  {
    kind: 'segment',
    start: () => startSegment('seg_time'),
    credentials: { write_key: 'seg_time' },
    received: (e) => Date.parse(e.timestamp as string),
  },
  {
    kind: 'mixpanel',
    start: () => startMixpanel('mp_time'),
    credentials: { project_token: 'mp_time' },
    received: (e) => (e.properties as Record<string, number>).time!,
  },
  {
    kind: 'amplitude',
    start: () => startAmplitude('amp_time_key'),
    credentials: { api_key: 'amp_time_key' },
    received: (e) => e.time as number,
  },
];

for (const vendor of VENDORS) {
  test(`${vendor.kind}: every accepted form of event.timestamp arrives as its exact instant`, async () => {
    const standIn = await vendor.start();
    standIns.push(standIn);
    const { projectId, key } = await h.project();
    const dest = await createDestination(h, projectId, {
      name: vendor.kind,
      kind: vendor.kind,
      base_url: standIn.url,
      credentials: vendor.credentials,
    });
    // UUIDs as event ids: every vendor keys its events by them unchanged.
    const events = FORMS.map(([form]) =>
      makeEvent(projectId, { event_id: randomUUID(), 'user.id': 'user-time', 'event.timestamp': form }),
    );
    await sendEvents(h, key, events);
    await waitFor(
      `${vendor.kind} delivery`,
      async () => standIn.events.size === FORMS.length || (await deadLetters(h, dest.id)).length > 0,
    );
    assert.deepEqual(await deadLetters(h, dest.id), []);
    FORMS.forEach(([form, expected], i) => {
      const got = standIn.events.get(events[i]!.event_id as string);
      assert.ok(got, `${form} not received`);
      assert.equal(vendor.received(got), expected, `${form} arrived as ${vendor.received(got)}`);
    });
  });
}
