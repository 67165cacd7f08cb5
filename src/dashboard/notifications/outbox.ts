import { randomUUID } from 'node:crypto';
import type { Database } from '../../kit/db.ts';
import { retryDelayMs, type BackoffPolicy } from '../../kit/outbound/backoff.ts';
import type { AlertPayload } from '../alerts/message.ts';
import { eachLimited, type Worker } from '../scheduling/loop.ts';
import { sendToChannel, type SendDeps } from './send.ts';
import type { ChannelRow } from './store.ts';

/** Attempts before a delivery is given up: about a day and a half with this backoff (5 s doubling to 6 h). */
export const MAX_ATTEMPTS = 12;
export const DELIVERY_BACKOFF: BackoffPolicy = { baseMs: 5_000, maxMs: 6 * 3600_000 };

interface ClaimedDelivery {
  id: number;
  event_id: string;
  payload: AlertPayload;
  attempts: number;
  channel: ChannelRow;
}

/**
 * Delivers the outbox: claims due rows (SKIP LOCKED, and a claim that ends so a dead instance's rows come back),
 * sends each, and records the outcome while the claim is still this instance's. A row is written with the state
 * change that caused it, so a restart loses none; it is marked sent right after the receiver's answer, and its
 * `webhook-id` is the same on every attempt, so a receiver can drop the rare repeat of a send cut short by a crash.
 */
export function notificationDeliverer(
  db: Database,
  deps: SendDeps,
  options: { instanceId: string; leaseSeconds: number; batch?: number },
): Worker {
  const batch = options.batch ?? 50;
  return {
    name: 'notification deliverer',
    async tick(signal) {
      const token = `${options.instanceId}/${randomUUID()}`;
      const claimed = await db.query<ClaimedDelivery>(
        `UPDATE notification_deliveries d
            SET claimed_by = $1, claimed_until = now() + make_interval(secs => $2), attempts = d.attempts + 1
           FROM notification_channels c
          WHERE c.id = d.channel_id AND d.id IN (
                SELECT id FROM notification_deliveries
                 WHERE status = 'pending' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
                 ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING d.id::int AS id, d.event_id, d.payload, d.attempts,
                  json_build_object('id', c.id, 'tenant_id', c.tenant_id, 'name', c.name, 'kind', c.kind,
                    'addresses', c.addresses, 'url_sealed', c.url_sealed, 'url_origin', c.url_origin,
                    'secret_sealed', c.secret_sealed) AS channel`,
        [token, options.leaseSeconds, batch],
      );
      await eachLimited(claimed.rows, 8, async (d) => {
        if (signal.aborted) return;
        const result = await sendToChannel(deps, d.channel, d.event_id, d.payload);
        if (result.ok) {
          await db.query(
            `UPDATE notification_deliveries SET status = 'sent', sent_at = now(), last_error = NULL, claimed_by = NULL,
                    claimed_until = NULL WHERE id = $1 AND claimed_by = $2`,
            [d.id, token],
          );
          return;
        }
        const final = result.permanent || d.attempts >= MAX_ATTEMPTS;
        const delay = retryDelayMs(d.attempts, DELIVERY_BACKOFF, result.retryAfterMs);
        await db.query(
          `UPDATE notification_deliveries SET status = $3, last_error = $4, claimed_by = NULL, claimed_until = NULL,
                  next_attempt_at = now() + make_interval(secs => $5) WHERE id = $1 AND claimed_by = $2`,
          [d.id, token, final ? 'failed' : 'pending', result.detail, delay / 1000],
        );
      });
      await db.query(
        `UPDATE notification_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = $1`,
        [token],
      );
      return claimed.rows.length === batch;
    },
  };
}
