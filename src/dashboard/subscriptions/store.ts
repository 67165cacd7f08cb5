import type { Queryable } from '../../kit/db.ts';
import type { Schedule } from './schedule.ts';

export interface SubscriptionRow {
  id: number;
  tenant_id: number;
  dashboard_id: number;
  owner_id: number;
  frequency: Schedule['frequency'];
  minute: number;
  hour: number;
  weekday: number;
  timezone: string;
  user_ids: number[];
  addresses: string[];
  parameters: Record<string, string>;
  enabled: boolean;
  next_run_at: Date;
  last_sent_at: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export const SUBSCRIPTION_COLUMNS = `s.id::int AS id, s.tenant_id::int AS tenant_id, s.dashboard_id::int AS dashboard_id,
  s.owner_id::int AS owner_id, s.frequency, s.minute, s.hour, s.weekday, s.timezone,
  s.user_ids::int[] AS user_ids, s.addresses, s.parameters, s.enabled, s.next_run_at, s.last_sent_at, s.last_error,
  s.created_at, s.updated_at`;

export interface SubscriptionFields extends Schedule {
  userIds: number[];
  addresses: string[];
  parameters: Record<string, string>;
  enabled: boolean;
  nextRunAt: Date;
}

export async function getSubscription(db: Queryable, tenantId: number, id: number) {
  const r = await db.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM dashboard_subscriptions s WHERE s.tenant_id = $1 AND s.id = $2`,
    [tenantId, id],
  );
  return r.rows[0];
}

export async function listSubscriptions(db: Queryable, tenantId: number, dashboardId: number) {
  const r = await db.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM dashboard_subscriptions s WHERE s.tenant_id = $1 AND s.dashboard_id = $2
      ORDER BY s.id LIMIT 200`,
    [tenantId, dashboardId],
  );
  return r.rows;
}

const values = (f: SubscriptionFields) => [
  f.frequency,
  f.minute,
  f.hour,
  f.weekday,
  f.timezone,
  f.userIds,
  f.addresses,
  JSON.stringify(f.parameters),
  f.enabled,
  f.nextRunAt,
];

export async function insertSubscription(
  db: Queryable,
  tenantId: number,
  dashboardId: number,
  ownerId: number,
  f: SubscriptionFields,
): Promise<number> {
  const r = await db.query<{ id: number }>(
    `INSERT INTO dashboard_subscriptions (frequency, minute, hour, weekday, timezone, user_ids, addresses, parameters,
       enabled, next_run_at, tenant_id, dashboard_id, owner_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id::int AS id`,
    [...values(f), tenantId, dashboardId, ownerId],
  );
  return r.rows[0]!.id;
}

export async function updateSubscription(db: Queryable, id: number, ownerId: number, f: SubscriptionFields) {
  await db.query(
    `UPDATE dashboard_subscriptions SET frequency = $1, minute = $2, hour = $3, weekday = $4, timezone = $5,
       user_ids = $6, addresses = $7, parameters = $8, enabled = $9, next_run_at = $10, owner_id = $11,
       updated_at = now() WHERE id = $12`,
    [...values(f), ownerId, id],
  );
}

export async function deleteSubscription(db: Queryable, id: number) {
  await db.query('DELETE FROM dashboard_subscriptions WHERE id = $1', [id]);
}
