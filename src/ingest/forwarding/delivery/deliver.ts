import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../../kit/db.ts';
import { randomToken } from '../../../kit/crypto.ts';
import type { ForwardingMetrics } from '../metrics.ts';
import { redactBaseUrl } from '../destinations/base-url.ts';
import type { DeliveryTarget } from '../destinations/store.ts';
import { KINDS } from '../vendors/index.ts';
import type { DestinationTarget, Outcome } from '../vendors/types.ts';
import { retryDelayMs, type BackoffPolicy } from '../../../kit/outbound/backoff.ts';
import { post, SendError } from './http.ts';
import {
  claim,
  complete,
  countDestinationFailure,
  fail,
  pause,
  release,
  resetDestinationFailures,
  type ClaimedEntry,
  type DeadLetterPolicy,
  type Failure,
} from './outbox.ts';

export interface DeliveryContext {
  db: Database;
  metrics: ForwardingMetrics;
  log: FastifyBaseLogger;
  timeoutMs: number;
  leaseMs: number;
  backoff: BackoffPolicy;
  deadLetter: DeadLetterPolicy;
  stop: AbortSignal;
}

interface Packed {
  entry: ClaimedEntry;
  record: string;
}

/**
 * Claims one batch of a destination, sends it in one request and settles every entry by the answer.
 * Returns how many entries were claimed (0: nothing due, the caller's loop may rest).
 */
export async function deliverOnce(ctx: DeliveryContext, target: DeliveryTarget): Promise<number> {
  const adapter = KINDS[target.kind].adapter;
  const { limits } = adapter;
  const token = randomToken(12);
  const entries = await claim(ctx.db, target.id, limits.maxEvents, ctx.leaseMs, token);
  if (entries.length === 0) return 0;
  const labels = { destination: target.id, kind: target.kind };
  const scrub = scrubber(target);

  // An outbox entry whose event row is gone (removed by retention) has nothing left to send.
  await complete(
    ctx.db,
    entries.filter((e) => !e.body).map((e) => e.id),
  );

  const batch: Packed[] = [];
  const leftover: number[] = [];
  const oversize: Failure[] = [];
  const envelope = adapter.envelopeBytes(target);
  let bytes = envelope;
  let full = false;
  for (const entry of entries) {
    if (!entry.body) continue;
    if (full || (entry.solo && batch.length > 0)) {
      full = true;
      leftover.push(entry.id);
      continue;
    }
    const record = adapter.record(entry.body, target);
    const size = Buffer.byteLength(record);
    if (size > limits.maxEventBytes || envelope + size > limits.maxBytes) {
      const limit = Math.min(limits.maxEventBytes, limits.maxBytes - envelope);
      oversize.push({
        id: entry.id,
        reason: `event is ${size} bytes as ${target.kind} receives it, over its limit of ${limit} bytes`,
        delayMs: retryDelayMs(entry.attempts, ctx.backoff),
      });
      continue;
    }
    if (batch.length >= limits.maxEvents || bytes + size + (batch.length > 0 ? 1 : 0) > limits.maxBytes) {
      full = true;
      leftover.push(entry.id);
      continue;
    }
    bytes += size + (batch.length > 0 ? 1 : 0);
    batch.push({ entry, record });
    if (entry.solo) full = true;
  }
  await release(ctx.db, leftover, token);
  if (oversize.length) await settleFailures(ctx, target, oversize, token);
  if (batch.length === 0) return entries.length;

  const request = adapter.request(
    batch.map((p) => p.record),
    target,
  );
  let outcome: Outcome;
  try {
    outcome = adapter.interpret(await post(request, ctx.timeoutMs, ctx.stop), batch.length);
  } catch (err) {
    if (!(err instanceof SendError)) throw err;
    if (ctx.stop.aborted) {
      // Shutting down mid-request: give the entries back untried; the next instance or start sends them (at least once).
      await release(
        ctx.db,
        batch.map((p) => p.entry.id),
        token,
      );
      return entries.length;
    }
    outcome = { kind: 'retry', reason: err.message };
  }

  const ids = batch.map((p) => p.entry.id);
  if ((outcome.kind === 'delivered' || outcome.kind === 'partial') && target.failures > 0)
    await resetDestinationFailures(ctx.db, target.id);
  switch (outcome.kind) {
    case 'delivered':
      await complete(ctx.db, ids);
      ctx.metrics.delivered.inc(labels, ids.length);
      break;
    case 'retry':
    case 'rejected': {
      if (outcome.kind === 'rejected' && outcome.scope === 'payload' && batch.length > 1) {
        // Something in the batch was refused without being named: send each event alone to find it, without counting this attempt.
        ctx.log.warn(
          { destination: target.id, kind: target.kind, events: batch.length, reason: scrub(outcome.reason) },
          'destination refused a batch; sending its events one by one',
        );
        await release(ctx.db, ids, token, true);
        break;
      }
      // Each event waits by its own attempts (a Retry-After is the floor), so an old event that keeps failing backs off
      // alone while the events that came with it are retried soon.
      const retryAfter = outcome.kind === 'retry' ? outcome.retryAfterMs : undefined;
      const reason = scrub(outcome.reason);
      const failures = batch.map((p) => ({
        id: p.entry.id,
        reason,
        delayMs: retryDelayMs(p.entry.attempts, ctx.backoff, retryAfter),
      }));
      let pauseMs: number | undefined;
      if (outcome.kind === 'retry' || outcome.scope === 'destination') {
        // The whole destination waits, by its own count of failed rounds: the rest of its backlog would meet the same
        // outage or limit. That count restarts at its next delivery, so a short outage costs short pauses.
        pauseMs = retryDelayMs(await countDestinationFailure(ctx.db, target.id), ctx.backoff, retryAfter);
        await pause(ctx.db, target.id, pauseMs);
      }
      ctx.log.warn(
        { destination: target.id, kind: target.kind, events: batch.length, reason, pauseMs },
        'delivery failed',
      );
      await settleFailures(ctx, target, failures, token);
      break;
    }
    case 'partial': {
      const failures: Failure[] = [];
      const others: number[] = [];
      batch.forEach((p, index) => {
        const reason = outcome.failed.get(index);
        if (reason === undefined) others.push(p.entry.id);
        else
          failures.push({
            id: p.entry.id,
            reason: scrub(reason),
            delayMs: retryDelayMs(p.entry.attempts, ctx.backoff),
          });
      });
      ctx.log.warn(
        { destination: target.id, kind: target.kind, events: batch.length, failed: failures.length },
        'destination refused some events',
      );
      if (outcome.othersDelivered) {
        await complete(ctx.db, others);
        ctx.metrics.delivered.inc(labels, others.length);
      } else {
        await release(ctx.db, others, token);
      }
      await settleFailures(ctx, target, failures, token);
      break;
    }
  }
  return entries.length;
}

async function settleFailures(
  ctx: DeliveryContext,
  target: DeliveryTarget,
  failures: Failure[],
  token: string,
): Promise<void> {
  const { retried, dead } = await fail(ctx.db, failures, token, ctx.deadLetter);
  const labels = { destination: target.id, kind: target.kind };
  if (retried) ctx.metrics.retried.inc(labels, retried);
  if (dead) {
    ctx.metrics.deadLettered.inc(labels, dead);
    ctx.log.warn(
      { destination: target.id, kind: target.kind, events: dead, reason: failures[0]?.reason },
      'events moved to the dead letters',
    );
  }
}

/**
 * Vendors may echo a credential in an error (Amplitude's "Invalid API key: ..."), and a receiver its own URL (a 404
 * naming the path, a redirect's Location, fetch naming the address): neither reaches a log or a dead letter.
 */
function scrubber(target: DestinationTarget): (text: string) => string {
  const replacements = new Map<string, string>();
  for (const v of Object.values(target.credentials)) if (v.length >= 4) replacements.set(v, '[redacted]');
  const url = new URL(target.baseUrl);
  const redacted = redactBaseUrl(target.baseUrl);
  for (const whole of [url.href, target.baseUrl]) replacements.set(whole, redacted);
  const rest = `${url.pathname}${url.search}`;
  for (const part of [rest, url.pathname, url.search.slice(1)]) {
    if (part.length <= 1) continue;
    replacements.set(part, '…');
    replacements.set(encodeURIComponent(part), '…');
    replacements.set(decodeSafely(part), '…');
  }
  // Longest first, so the whole URL becomes its redacted form before its path alone would be cut out of it.
  const ordered = [...replacements].filter(([s]) => s.length > 1).sort(([a], [b]) => b.length - a.length);
  return (text) => ordered.reduce((t, [s, r]) => t.split(s).join(r), text);
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
