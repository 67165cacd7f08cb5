import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';
import { mayMove, type PlanTier, type SubscriptionStatus } from './subscription-transitions.ts';

export interface Subscription {
  id: string;
  organization_id: string;
  plan_tier: PlanTier;
  status: SubscriptionStatus;
  current_period_start: string | null;
  current_period_end: string | null;
  payment_subscription_id: string | null;
  payment_customer_id: string | null;
  cancel_at_period_end: boolean;
  created_at: string;
  updated_at: string;
}

export const SUBSCRIPTION_COLUMNS = `id, organization_id, plan_tier, status, ${isoUtc('current_period_start')} AS current_period_start,
  ${isoUtc('current_period_end')} AS current_period_end, payment_subscription_id, payment_customer_id, cancel_at_period_end,
  ${isoUtc('created_at')} AS created_at, ${isoUtc('updated_at')} AS updated_at`;

export interface SubscriptionFields {
  plan_tier?: PlanTier | undefined;
  status?: SubscriptionStatus | undefined;
  current_period_start?: string | null | undefined;
  current_period_end?: string | null | undefined;
  payment_subscription_id?: string | null | undefined;
  payment_customer_id?: string | null | undefined;
  cancel_at_period_end?: boolean | undefined;
}

function refused(err: unknown): never {
  const code = (err as { code?: string }).code;
  if (code === '23505')
    throw new HttpError(
      409,
      'CONFLICT',
      'this organization already has a subscription, or that payment_subscription_id belongs to another one',
    );
  if (code === '23514') throw new HttpError(400, 'VALIDATION_ERROR', 'a field breaks its rule');
  throw err;
}

function checkPeriod(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && Date.parse(end) <= Date.parse(start))
    throw new HttpError(400, 'VALIDATION_ERROR', 'current_period_end must be after current_period_start');
}

/** The one subscription of an organization; a second is 409. A new one is active or trialing. */
export async function createSubscription(
  db: Queryable,
  organizationId: string,
  f: SubscriptionFields,
): Promise<Subscription> {
  if (f.status && f.status !== 'active' && f.status !== 'trialing')
    throw new HttpError(400, 'VALIDATION_ERROR', 'a new subscription is active or trialing');
  checkPeriod(f.current_period_start, f.current_period_end);
  try {
    const r = await db.query<Subscription>(
      `INSERT INTO subscriptions (organization_id, plan_tier, status, current_period_start, current_period_end, payment_subscription_id, payment_customer_id, cancel_at_period_end)
       VALUES ($1, coalesce($2, 'free'), coalesce($3, 'active'), $4, $5, $6, $7, coalesce($8, false)) RETURNING ${SUBSCRIPTION_COLUMNS}`,
      [
        organizationId,
        f.plan_tier ?? null,
        f.status ?? null,
        f.current_period_start ?? null,
        f.current_period_end ?? null,
        f.payment_subscription_id ?? null,
        f.payment_customer_id ?? null,
        f.cancel_at_period_end ?? null,
      ],
    );
    return r.rows[0]!;
  } catch (err) {
    refused(err);
  }
}

export async function findSubscription(
  db: Queryable,
  organizationId: string,
  lock = false,
): Promise<Subscription | undefined> {
  return (
    await db.query<Subscription>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE organization_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [organizationId],
    )
  ).rows[0];
}

/** An operator's change (plans without a payment provider, corrections): the same status moves as the webhooks, 409 for any other. */
export async function updateSubscription(
  db: Database,
  organizationId: string,
  f: SubscriptionFields,
): Promise<Subscription | undefined> {
  return db.transaction(async (tx) => {
    const current = await findSubscription(tx, organizationId, true);
    if (!current) return undefined;
    if (f.status && !mayMove(current.status, f.status))
      throw new HttpError(409, 'CONFLICT', `a ${current.status} subscription cannot become ${f.status}`);
    if (current.status === 'canceled' && Object.values(f).some((v) => v !== undefined))
      throw new HttpError(409, 'CONFLICT', 'a canceled subscription does not change');
    checkPeriod(
      f.current_period_start === undefined ? current.current_period_start : f.current_period_start,
      f.current_period_end === undefined ? current.current_period_end : f.current_period_end,
    );
    const keep = (v: unknown) => v === undefined;
    try {
      const r = await tx.query<Subscription>(
        `UPDATE subscriptions SET plan_tier = coalesce($2, plan_tier), status = coalesce($3, status),
            current_period_start = CASE WHEN $4::boolean THEN current_period_start ELSE $5::timestamptz END,
            current_period_end = CASE WHEN $6::boolean THEN current_period_end ELSE $7::timestamptz END,
            payment_subscription_id = CASE WHEN $8::boolean THEN payment_subscription_id ELSE $9 END,
            payment_customer_id = CASE WHEN $10::boolean THEN payment_customer_id ELSE $11 END,
            cancel_at_period_end = coalesce($12, cancel_at_period_end), updated_at = now()
          WHERE organization_id = $1 RETURNING ${SUBSCRIPTION_COLUMNS}`,
        [
          organizationId,
          f.plan_tier ?? null,
          f.status ?? null,
          keep(f.current_period_start),
          f.current_period_start ?? null,
          keep(f.current_period_end),
          f.current_period_end ?? null,
          keep(f.payment_subscription_id),
          f.payment_subscription_id ?? null,
          keep(f.payment_customer_id),
          f.payment_customer_id ?? null,
          f.cancel_at_period_end ?? null,
        ],
      );
      return r.rows[0];
    } catch (err) {
      refused(err);
    }
  });
}
