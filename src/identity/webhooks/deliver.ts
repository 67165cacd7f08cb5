import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { retryDelayMs } from '../../kit/outbound/backoff.ts';
import { guardedPost, OutboundError } from '../../kit/outbound/post.ts';
import { webhookHeaders } from '../../kit/outbound/standard-webhooks.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopReport, pollLoop } from '../../kit/poll-loop.ts';
import { eventBody, type EventBody } from './payload.ts';
import { openSecret } from './store.ts';

/** After this many attempts a delivery is failed: kept in the log, sent again only when someone asks. */
export const MAX_ATTEMPTS = 10;
const BACKOFF = { baseMs: 2_000, maxMs: 3_600_000 };
/** A claimed delivery is someone's for this long: an instance that dies mid-send leaves it to another after that. */
const LEASE_SECONDS = 60;
const BATCH = 20;
const SEND = { timeoutMs: 10_000, userAgent: 'platform-identity-webhooks/1' };

export interface DeliveryDeps {
  db: Database;
  secretKey: Buffer;
  policy: AddressPolicy;
  log: FastifyBaseLogger;
}

export interface SendResult {
  delivered: boolean;
  status: number | null;
  error: string | null;
}

interface Claimed {
  id: string;
  webhook_id: string;
  change_id: string | null;
  event_type: string;
  attempts: number;
  url: string;
  secret_sealed: string;
}

/** One POST of a body, signed with the webhook's secret, with the delivery's id as the message id (the same on every retry). */
export async function sendSigned(
  deps: DeliveryDeps,
  target: { webhookId: string; url: string; secretSealed: string },
  messageId: string,
  body: EventBody,
): Promise<SendResult> {
  const json = JSON.stringify(body);
  const secret = openSecret(deps.secretKey, target.webhookId, target.secretSealed);
  const headers = webhookHeaders([secret], { id: messageId, timestamp: Math.floor(Date.now() / 1000), body: json });
  try {
    const answer = await guardedPost({ url: target.url, headers, body: json }, deps.policy, SEND);
    const delivered = answer.status >= 200 && answer.status < 300;
    return {
      delivered,
      status: answer.status,
      error: delivered ? null : `the receiver answered ${answer.status}: ${answer.text.slice(0, 200)}`,
    };
  } catch (err) {
    if (err instanceof OutboundError) return { delivered: false, status: null, error: err.message };
    throw err;
  }
}

/**
 * Sends what is due, a batch at a time. Each delivery is claimed in one statement (`FOR UPDATE SKIP LOCKED`, its next
 * attempt pushed past a lease), so instances sharing the database never send the same attempt twice, and a claim an
 * instance died holding comes due again when its lease ends.
 */
export async function deliverDue(deps: DeliveryDeps): Promise<number> {
  const claimed = await deps.db.query<Claimed>(
    `UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $1)
       FROM webhooks w
      WHERE w.id = d.webhook_id
        AND d.id IN (SELECT q.id FROM webhook_deliveries q JOIN webhooks qw ON qw.id = q.webhook_id
                      WHERE q.state = 'pending' AND q.next_attempt_at <= now() AND qw.enabled
                      ORDER BY q.next_attempt_at, q.id LIMIT $2 FOR UPDATE OF q SKIP LOCKED)
      RETURNING d.id::text AS id, d.webhook_id, d.change_id::text AS change_id, d.event_type, d.attempts, w.url, w.secret_sealed`,
    [LEASE_SECONDS, BATCH],
  );
  await Promise.all(claimed.rows.map((c) => deliverOne(deps, c)));
  return claimed.rows.length;
}

async function deliverOne(deps: DeliveryDeps, c: Claimed): Promise<void> {
  const body = c.change_id ? await eventBody(deps.db, c.change_id) : undefined;
  if (!body) {
    await finish(deps, c.id, 'failed', { delivered: false, status: null, error: 'the event is no longer recorded' });
    return;
  }
  const result = await sendSigned(
    deps,
    { webhookId: c.webhook_id, url: c.url, secretSealed: c.secret_sealed },
    `msg_${c.id}`,
    body,
  );
  if (result.delivered) await finish(deps, c.id, 'delivered', result);
  else if (c.attempts >= MAX_ATTEMPTS) await finish(deps, c.id, 'failed', result);
  else {
    await deps.db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => $2), last_status = $3, last_error = $4
        WHERE id = $1`,
      [c.id, retryDelayMs(c.attempts, BACKOFF) / 1000, result.status, result.error],
    );
  }
  deps.log.debug({ delivery: c.id, event: c.event_type, attempt: c.attempts, ...result }, 'webhook delivery');
}

async function finish(deps: DeliveryDeps, id: string, state: 'delivered' | 'failed', r: SendResult): Promise<void> {
  await deps.db.query(
    `UPDATE webhook_deliveries SET state = $2, last_status = $3, last_error = $4,
            delivered_at = CASE WHEN $2 = 'delivered' THEN now() END
      WHERE id = $1`,
    [id, state, r.status, r.error],
  );
}

/** Looks for due deliveries every `pollMs` on this instance until stopped; a database outage goes to `outage`. */
export function startDeliveries(deps: DeliveryDeps, pollMs: number, outage: OutageLog): { stop(): Promise<void> } {
  return pollLoop(
    pollMs,
    // A full batch means more may be due: go on at once rather than waiting for the next tick.
    async () => (await deliverDue(deps)) === BATCH,
    loopReport(deps.log, 'webhook deliveries could not be read', outage),
  );
}
