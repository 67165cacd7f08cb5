/**
 * What the live stream (src/ingest/live) adds to `POST /v1/events`, per 1,000-event batch of the ingest benchmark's
 * shape, in this process (no HTTP, no database): the check made on every request when nobody watches, and when
 * someone watches the project, building the records the stream passes on (at most hub.ts's MAX_PER_FLUSH per 250 ms,
 * the rest only counted) and queueing them; the pg_notify calls happen at most 4 times a second per instance, off the
 * request. Compared with what the request costs before its commit anyway: parsing and validating the batch.
 *
 *   node bench/ingest-live.ts        (BENCH_BATCHES=100 BENCH_ROUNDS=5)
 */
import { loadavg } from 'node:os';
import pino from 'pino';
import { localBus } from '../src/ingest/live/bus.ts';
import { createLiveHub, FLUSH_MS } from '../src/ingest/live/hub.ts';
import { acceptedRecords } from '../src/ingest/live/records.ts';
import { validateBatch } from '../src/ingest/events/validate.ts';
import { eventTemplates } from './support/events.ts';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PROJECT = 'bench';
const templates = eventTemplates(PROJECT);
const bodies = Array.from({ length: 20 }, (_, b) =>
  JSON.stringify({ events: templates.map((t, i) => JSON.parse(t.replace('@ID@', `${b}-${i}`))) }),
);

function timePerBatch(work: (body: string) => void): number {
  for (let i = 0; i < 20; i++) work(bodies[i % bodies.length]!);
  const started = performance.now();
  for (let i = 0; i < BATCHES; i++) work(bodies[i % bodies.length]!);
  return ((performance.now() - started) * 1000) / BATCHES;
}

/** A hub with its in-process bus (the embedded database's): the same code as on PostgreSQL up to the notification. */
function hubWithBus() {
  const hub = createLiveHub({ bus: () => bus, log: pino({ level: 'silent' }) });
  const bus = localBus((m) => hub.deliver(m));
  return hub;
}
const quiet = hubWithBus();
const busy = hubWithBus();
await new Promise<void>((resolve) => {
  busy.watch({ projectId: PROJECT, filter: { rejected: true }, send() {} }, resolve);
});

const validate = (body: string) => validateBatch((JSON.parse(body) as { events: unknown[] }).events, PROJECT);
const withLive = (hub: typeof busy) => (body: string) => {
  const { prepared } = validate(body);
  if (hub.watched(PROJECT)) {
    const shown = acceptedRecords(PROJECT, prepared, new Date(), hub.room());
    hub.offer(shown);
    hub.drop(PROJECT, prepared.count - shown.length);
  }
};

// Rounds alternate and the fastest of each is kept: the machine is shared, and noise only ever adds time.
const best = { request: Infinity, unwatched: Infinity, watched: Infinity };
for (let round = 0; round < ROUNDS; round++) {
  best.request = Math.min(
    best.request,
    timePerBatch((body) => void validate(body)),
  );
  best.unwatched = Math.min(best.unwatched, timePerBatch(withLive(quiet)));
  best.watched = Math.min(best.watched, timePerBatch(withLive(busy)));
  // The flush runs between rounds, as it would between requests (every FLUSH_MS).
  await new Promise((resolve) => setTimeout(resolve, FLUSH_MS * 2));
}
await quiet.close();
await busy.close();
const pct = (t: number) => `${((t / best.request - 1) * 100).toFixed(1)} %`;
console.log(
  `live stream cost, ${new Date().toISOString()}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  `per 1,000-event batch (µs): parse + validate ${best.request.toFixed(0)}; with the live check, nobody watching ${best.unwatched.toFixed(0)} (${pct(best.unwatched)}); watched ${best.watched.toFixed(0)} (${pct(best.watched)})`,
);
