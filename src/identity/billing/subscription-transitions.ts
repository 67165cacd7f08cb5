/**
 * The statuses of a subscription and the moves between them. They follow the payment provider's
 * lifecycle (Stripe's subscription statuses): a trial ends paid, unpaid or canceled; an active
 * subscription whose invoice fails becomes past_due, and past_due becomes active again when paid,
 * or unpaid when the retries run out; canceled is final (a new provider subscription starts afresh).
 * A change that keeps the status (a new plan, a new period, cancel_at_period_end) is always allowed.
 */
export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'canceled', 'unpaid'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const PLAN_TIERS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type PlanTier = (typeof PLAN_TIERS)[number];

export const SUBSCRIPTION_MOVES: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  trialing: ['active', 'past_due', 'canceled'],
  // An active subscription may get a trial added (Stripe: updating trial_end), fall behind or end.
  active: ['trialing', 'past_due', 'canceled'],
  past_due: ['active', 'unpaid', 'canceled'],
  unpaid: ['active', 'canceled'],
  canceled: [],
};

export function mayMove(from: SubscriptionStatus, to: SubscriptionStatus): boolean {
  return from === to || SUBSCRIPTION_MOVES[from].includes(to);
}
