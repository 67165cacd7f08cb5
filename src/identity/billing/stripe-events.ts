import type { Database, Queryable } from '../../kit/db.ts';
import {
  mayMove,
  PLAN_TIERS,
  SUBSCRIPTION_STATUSES,
  type PlanTier,
  type SubscriptionStatus,
} from './subscription-transitions.ts';
import { SUBSCRIPTION_COLUMNS, type Subscription } from './subscription-store.ts';

/** The part of a Stripe event (API object `event`) this service reads. */
export interface StripeEvent {
  id: string;
  type: string;
  /** Seconds since the epoch: when Stripe created the event, the order the events are applied in. */
  created: number;
  data: { object: Record<string, unknown> };
}

/** What became of an event; answered to Stripe and kept in payment_events. */
export type EventOutcome =
  | 'applied' // the subscription now reflects the event
  | 'duplicate' // this event id was received before: nothing done again
  | 'stale' // older than the newest event applied to the subscription: recorded, state kept
  | 'illegal_transition' // the status move is not one a subscription makes: recorded, state kept
  | 'unsupported_status' // a Stripe status the platform does not model (incomplete, incomplete_expired, paused)
  | 'unknown_subscription' // neither the provider's id nor metadata.organization_id names one of ours
  | 'other_subscription' // the organization's live subscription is another provider subscription
  | 'ignored'; // an event type the platform does not act on

export const SUBSCRIPTION_EVENTS = [
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 255 ? v : undefined);
/** A Stripe object id (sub_…, cus_…): anything else is not taken from the event. */
const stripeId = (v: unknown) => (typeof v === 'string' && /^[A-Za-z0-9_-]{1,255}$/.test(v) ? v : undefined);
const record = (v: unknown) =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const seconds = (v: unknown) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v < 1e11 ? new Date(v * 1000).toISOString() : undefined;

/** What the subscription object says, in the platform's terms. */
function readSubscription(o: Record<string, unknown>, deleted: boolean) {
  const firstItem = record((record(o.items)?.data as unknown[] | undefined)?.[0]);
  const price = record(firstItem?.price);
  const metadata = record(o.metadata);
  const plan = [str(metadata?.plan_tier), str(price?.lookup_key)].find((p): p is PlanTier =>
    (PLAN_TIERS as readonly string[]).includes(p ?? ''),
  );
  const status = deleted ? 'canceled' : str(o.status);
  return {
    id: stripeId(o.id),
    customer: stripeId(o.customer) ?? stripeId(record(o.customer)?.id),
    organizationId: str(metadata?.organization_id)?.match(UUID) ? (metadata!.organization_id as string) : undefined,
    status: (SUBSCRIPTION_STATUSES as readonly string[]).includes(status ?? '')
      ? (status as SubscriptionStatus)
      : undefined,
    plan,
    // Since API version 2025-03-31 the period is on the subscription items; before, on the subscription.
    periodStart: seconds(o.current_period_start) ?? seconds(firstItem?.current_period_start),
    periodEnd: seconds(o.current_period_end) ?? seconds(firstItem?.current_period_end),
    cancelAtPeriodEnd: typeof o.cancel_at_period_end === 'boolean' ? o.cancel_at_period_end : undefined,
  };
}

/** The subscription an event is about, locked; made for the organization its metadata names when it has none yet. */
type Row = Subscription & { last_event_created: number | null };

async function subscriptionFor(
  tx: Queryable,
  s: ReturnType<typeof readSubscription>,
): Promise<{ row: Row; fresh: boolean } | EventOutcome> {
  const byId = (
    await tx.query<Row>(
      `SELECT ${SUBSCRIPTION_COLUMNS}, last_event_created FROM subscriptions WHERE payment_subscription_id = $1 FOR UPDATE`,
      [s.id],
    )
  ).rows[0];
  if (byId) return { row: byId, fresh: false };
  if (!s.organizationId) return 'unknown_subscription';
  const org = (await tx.query('SELECT 1 FROM organizations WHERE id = $1', [s.organizationId])).rows[0];
  if (!org) return 'unknown_subscription';
  await tx.query('INSERT INTO subscriptions (organization_id) VALUES ($1) ON CONFLICT (organization_id) DO NOTHING', [
    s.organizationId,
  ]);
  const row = (
    await tx.query<Row>(
      `SELECT ${SUBSCRIPTION_COLUMNS}, last_event_created FROM subscriptions WHERE organization_id = $1 FOR UPDATE`,
      [s.organizationId],
    )
  ).rows[0]!;
  if (row.payment_subscription_id === null) return { row, fresh: false };
  // The organization pays through another provider subscription. After a cancellation a new one
  // takes its place (a canceled subscription never comes back); otherwise this event is not ours to apply.
  return row.status === 'canceled' ? { row, fresh: true } : 'other_subscription';
}

/**
 * Applies one verified event, once. The event id is recorded first, in the same transaction: a
 * replay (or the same event delivered twice at once) finds it and changes nothing. The subscription
 * row is locked, and an event older (by its own `created`) than the newest one applied is recorded
 * but not applied, so a late delivery never rolls the state back. Events with the same `created`
 * second are applied in the order they arrive.
 */
export async function applyStripeEvent(db: Database, event: StripeEvent): Promise<EventOutcome> {
  return db.transaction(async (tx) => {
    const fresh = await tx.query(
      `INSERT INTO payment_events (event_id, provider, type, created, outcome) VALUES ($1, 'stripe', $2, $3, 'received') ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [event.id, event.type, event.created],
    );
    if (fresh.rowCount === 0) return 'duplicate';
    const record = async (outcome: EventOutcome, subscriptionId: string | null = null) => {
      await tx.query('UPDATE payment_events SET outcome = $2, subscription_id = $3 WHERE event_id = $1', [
        event.id,
        outcome,
        subscriptionId,
      ]);
      return outcome;
    };
    if (!(SUBSCRIPTION_EVENTS as readonly string[]).includes(event.type) || event.data.object.object !== 'subscription')
      return record('ignored');
    const s = readSubscription(event.data.object, event.type === 'customer.subscription.deleted');
    if (!s.id) return record('unknown_subscription');
    const found = await subscriptionFor(tx, s);
    if (typeof found === 'string') return record(found);
    const { row, fresh: replacing } = found;
    if (!replacing && row.last_event_created !== null && event.created < row.last_event_created)
      return record('stale', row.id);
    if (!s.status) return record('unsupported_status', row.id);
    if (!replacing && !mayMove(row.status, s.status)) return record('illegal_transition', row.id);
    await tx.query(
      `UPDATE subscriptions SET status = $2, plan_tier = coalesce($3, plan_tier), payment_subscription_id = $4, payment_customer_id = coalesce($5, payment_customer_id),
          current_period_start = coalesce($6, current_period_start), current_period_end = coalesce($7, current_period_end),
          cancel_at_period_end = coalesce($8, cancel_at_period_end), last_event_created = $9, last_event_id = $10, updated_at = now()
        WHERE id = $1`,
      [
        row.id,
        s.status,
        s.plan ?? null,
        s.id,
        s.customer ?? null,
        s.periodStart ?? null,
        s.periodEnd ?? null,
        s.cancelAtPeriodEnd ?? null,
        event.created,
        event.id,
      ],
    );
    return record('applied', row.id);
  });
}
