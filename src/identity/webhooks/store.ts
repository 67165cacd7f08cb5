import type { Database, Queryable } from '../../kit/db.ts';
import { openSealedString, seal } from '../../kit/crypto.ts';
import { isoUtc } from '../../kit/sql.ts';
import { newWebhookSecret } from '../../kit/outbound/standard-webhooks.ts';

export interface Webhook {
  id: string;
  url: string;
  description: string;
  /** Empty: every event type. */
  events: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface DeliveryView {
  id: string;
  event: string;
  change_id: string | null;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** The secret is sealed with the service key, bound to the webhook's id: a sealed value copied to another row opens nowhere. */
const sealContext = (id: string) => `identity.webhook:${id}`;

const COLUMNS = `id, url, description, event_types AS events, enabled,
  ${isoUtc('created_at')} AS created_at, ${isoUtc('updated_at')} AS updated_at`;

export async function listWebhooks(db: Queryable): Promise<Webhook[]> {
  return (await db.query<Webhook>(`SELECT ${COLUMNS} FROM webhooks ORDER BY webhooks.created_at, webhooks.id`)).rows;
}

export async function findWebhook(db: Queryable, id: string): Promise<Webhook | undefined> {
  return (await db.query<Webhook>(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1`, [id])).rows[0];
}

/** A new webhook and its signing secret, which only this answer carries. */
export async function createWebhook(
  db: Database,
  key: Buffer,
  input: { url: string; description: string; events: string[]; enabled: boolean },
): Promise<{ webhook: Webhook; secret: string }> {
  const secret = newWebhookSecret();
  return db.transaction(async (tx) => {
    const id = (await tx.query<{ id: string }>('SELECT gen_random_uuid()::text AS id')).rows[0]!.id;
    const r = await tx.query<Webhook>(
      `INSERT INTO webhooks (id, url, description, event_types, enabled, secret_sealed)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [id, input.url, input.description, input.events, input.enabled, seal(key, secret, sealContext(id))],
    );
    return { webhook: r.rows[0]!, secret };
  });
}

export async function updateWebhook(
  db: Queryable,
  id: string,
  patch: {
    url?: string | undefined;
    description?: string | undefined;
    events?: string[] | undefined;
    enabled?: boolean | undefined;
  },
): Promise<Webhook | undefined> {
  const r = await db.query<Webhook>(
    `UPDATE webhooks SET url = coalesce($2, url), description = coalesce($3, description),
            event_types = coalesce($4, event_types), enabled = coalesce($5, enabled), updated_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, patch.url ?? null, patch.description ?? null, patch.events ?? null, patch.enabled ?? null],
  );
  return r.rows[0];
}

/** A new secret replaces the old at once; the new one is in this answer only. */
export async function rotateWebhookSecret(db: Queryable, key: Buffer, id: string): Promise<string | undefined> {
  const secret = newWebhookSecret();
  const r = await db.query('UPDATE webhooks SET secret_sealed = $2, updated_at = now() WHERE id = $1', [
    id,
    seal(key, secret, sealContext(id)),
  ]);
  return r.rowCount ? secret : undefined;
}

export async function deleteWebhook(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM webhooks WHERE id = $1', [id])).rowCount > 0;
}

export function openSecret(key: Buffer, id: string, sealed: string): string {
  return openSealedString(key, sealed, sealContext(id));
}

/** A webhook's deliveries, newest first, after the cursor's id. */
export async function listDeliveries(
  db: Queryable,
  webhookId: string,
  filter: { state?: string | undefined; before?: string | undefined; limit: number },
): Promise<DeliveryView[]> {
  const r = await db.query<DeliveryView>(
    `SELECT id::text AS id, event_type AS event, change_id::text AS change_id, state, attempts,
            CASE WHEN state = 'pending' THEN ${isoUtc('next_attempt_at')} END AS next_attempt_at,
            last_status AS last_status, last_error AS last_error, ${isoUtc('created_at')} AS created_at,
            ${isoUtc('delivered_at')} AS delivered_at
       FROM webhook_deliveries
      WHERE webhook_id = $1 AND ($2::text IS NULL OR state = $2) AND ($3::bigint IS NULL OR id < $3)
      ORDER BY webhook_deliveries.id DESC LIMIT $4`,
    [webhookId, filter.state ?? null, filter.before ?? null, filter.limit],
  );
  return r.rows;
}

/** Sends a failed delivery again from its first attempt; false when it is not the webhook's or not failed. */
export async function retryDelivery(db: Queryable, webhookId: string, deliveryId: string): Promise<boolean> {
  const r = await db.query(
    `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = now(), last_error = NULL
      WHERE id = $2 AND webhook_id = $1 AND state = 'failed'`,
    [webhookId, deliveryId],
  );
  return r.rowCount > 0;
}
