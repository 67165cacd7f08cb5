import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import { newMessageId } from '../../kit/outbound/standard-webhooks.ts';
import type { NoticePayload } from './message.ts';

export interface NotifySettings {
  emails: string[];
  webhookUrl: string | null;
  onScoreDrop: boolean;
  onNewFailures: boolean;
  updatedAt: string | null;
}

export interface StoredSettings extends NotifySettings {
  webhookSecretSealed: string | null;
}

export const DEFAULT_SETTINGS: StoredSettings = {
  emails: [],
  webhookUrl: null,
  onScoreDrop: true,
  onNewFailures: true,
  updatedAt: null,
  webhookSecretSealed: null,
};

export async function getSettings(db: Queryable, siteId: string): Promise<StoredSettings> {
  const { rows } = await db.query<StoredSettings>(
    `SELECT emails, webhook_url AS "webhookUrl", on_score_drop AS "onScoreDrop", on_new_failures AS "onNewFailures",
       ${isoUtc('updated_at')} AS "updatedAt", webhook_secret_sealed AS "webhookSecretSealed"
     FROM site_notifications WHERE site_id = $1`,
    [siteId],
  );
  return rows[0] ?? DEFAULT_SETTINGS;
}

export async function putSettings(db: Queryable, siteId: string, settings: Omit<StoredSettings, 'updatedAt'>) {
  await db.query(
    `INSERT INTO site_notifications (site_id, emails, webhook_url, webhook_secret_sealed, on_score_drop, on_new_failures)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (site_id) DO UPDATE SET emails = excluded.emails, webhook_url = excluded.webhook_url,
       webhook_secret_sealed = excluded.webhook_secret_sealed, on_score_drop = excluded.on_score_drop,
       on_new_failures = excluded.on_new_failures, updated_at = now()`,
    [
      siteId,
      settings.emails,
      settings.webhookUrl,
      settings.webhookSecretSealed,
      settings.onScoreDrop,
      settings.onNewFailures,
    ],
  );
}

export type Channel = 'email' | 'webhook';

/** Stores one notice per destination, in the caller's transaction. */
export async function insertDeliveries(
  tx: Queryable,
  siteId: string,
  jobId: string | null,
  payload: NoticePayload,
  destinations: readonly { channel: Channel; target: string }[],
): Promise<void> {
  for (const d of destinations) {
    await tx.query(
      `INSERT INTO notification_deliveries (id, site_id, job_id, channel, target, event, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [newMessageId(), siteId, jobId, d.channel, d.target, payload.type, JSON.stringify(payload)],
    );
  }
}

export interface ClaimedDelivery {
  id: string;
  siteId: string;
  channel: Channel;
  target: string;
  payload: NoticePayload;
  attempts: number;
  createdAt: Date;
}

/**
 * Takes due notices for `leaseSeconds`: another instance skips them (SKIP LOCKED) and, while the lease holds, does not
 * find them due; an instance that dies mid-send leaves them to be taken again when the lease ends.
 */
export async function claimDeliveries(db: Queryable, leaseSeconds: number, limit: number): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>(
    `UPDATE notification_deliveries SET attempts = attempts + 1, lease_until = now() + make_interval(secs => $1)
     WHERE id IN (
       SELECT id FROM notification_deliveries
       WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
       ORDER BY seq FOR UPDATE SKIP LOCKED LIMIT $2
     )
     RETURNING id, site_id AS "siteId", channel, target, payload, attempts, created_at AS "createdAt"`,
    [leaseSeconds, limit],
  );
  return rows;
}

export async function markDelivered(db: Queryable, id: string): Promise<void> {
  await db.query(
    "UPDATE notification_deliveries SET status = 'delivered', delivered_at = now(), lease_until = NULL, last_error = NULL WHERE id = $1",
    [id],
  );
}

/** A failed attempt: tried again after `retryInMs`, or `failed` for good when null. */
export async function markAttemptFailed(db: Queryable, id: string, error: string, retryInMs: number | null) {
  await db.query(
    `UPDATE notification_deliveries SET lease_until = NULL, last_error = $2,
       status = CASE WHEN $3::int IS NULL THEN 'failed' ELSE 'pending' END,
       next_attempt_at = CASE WHEN $3::int IS NULL THEN next_attempt_at ELSE now() + make_interval(secs => $3::int / 1000.0) END
     WHERE id = $1`,
    [id, error.slice(0, 500), retryInMs],
  );
}

export interface DeliveryRecord {
  id: string;
  channel: Channel;
  target: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

/** The site's latest notices, newest first. */
export async function listDeliveries(db: Queryable, siteId: string, limit: number): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRecord>(
    `SELECT id, channel, target, event, status, attempts, last_error AS "lastError", ${isoUtc('created_at')} AS "createdAt",
       ${isoUtc('delivered_at')} AS "deliveredAt",
       CASE WHEN status = 'pending' THEN ${isoUtc('next_attempt_at')} END AS "nextAttemptAt"
     FROM notification_deliveries WHERE site_id = $1 ORDER BY seq DESC LIMIT $2`,
    [siteId, limit],
  );
  return rows;
}
