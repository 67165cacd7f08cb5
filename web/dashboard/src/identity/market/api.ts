/**
 * identity's marketplace as the console reads it (src/identity/marketplace/schemas.ts, billing/subscription-routes.ts).
 * Titles, descriptions, product types and payment ids were typed by sellers or came from the payment provider: the
 * screens render them as text only.
 */
export type ListingStatus = 'draft' | 'pending_review' | 'published' | 'archived';

export interface ApiListing {
  id: string;
  product_type: string;
  title: string;
  description: string | null;
  pricing_model: 'free' | 'one_time' | 'subscription' | 'per_seat';
  price_cents: number;
  currency: string;
  status: ListingStatus;
  published_at: string | null;
  creator_org_id: string;
  owner_id: string;
  created_at: string;
}

export interface ApiLicense {
  id: string;
  license_type: 'seat_based' | 'team' | 'unlimited';
  seats: number | null;
  used_seats: number;
  valid_from: string;
  valid_until: string | null;
  payment_subscription_id: string | null;
  listing_id: string;
  organization_id: string;
  purchased_by: string;
  created_at: string;
}

export interface ApiSeat {
  id: string;
  license_id: string;
  principal_id: string;
  assigned_by: string | null;
  assigned_at: string;
}

export type PlanTier = 'free' | 'starter' | 'pro' | 'enterprise';
export type SubscriptionStatus = 'active' | 'trialing' | 'past_due' | 'canceled' | 'unpaid';

export interface ApiSubscription {
  id: string;
  organization_id: string;
  plan_tier: PlanTier;
  status: SubscriptionStatus;
  current_period_start: string | null;
  current_period_end: string | null;
  payment_subscription_id: string | null;
  cancel_at_period_end: boolean;
}

export const LISTING_STATUSES: Record<ListingStatus, string> = {
  draft: 'Draft',
  pending_review: 'Waiting for review',
  published: 'Published',
  archived: 'Archived',
};
export const PRICING: Record<ApiListing['pricing_model'], string> = {
  free: 'Free',
  one_time: 'One payment',
  subscription: 'Subscription',
  per_seat: 'Per seat',
};
export const LICENSE_TYPES: Record<ApiLicense['license_type'], string> = {
  seat_based: 'Per seat',
  team: 'Team pack',
  unlimited: 'Unlimited',
};
export const PLANS: Record<PlanTier, string> = {
  free: 'Free',
  starter: 'Starter',
  pro: 'Pro',
  enterprise: 'Enterprise',
};
export const SUBSCRIPTION_STATUSES: Record<SubscriptionStatus, string> = {
  active: 'Active',
  trialing: 'Trial',
  past_due: 'Payment overdue',
  canceled: 'Canceled',
  unpaid: 'Unpaid',
};

/** A price in the currency's minor unit, written in it ("$12.50"); an unknown currency as the bare number and code. */
export function priceOf(l: Pick<ApiListing, 'pricing_model' | 'price_cents' | 'currency'>): string {
  if (l.pricing_model === 'free') return 'Free';
  try {
    const format = new Intl.NumberFormat(undefined, { style: 'currency', currency: l.currency });
    return format.format(l.price_cents / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${l.price_cents} ${l.currency} (minor units)`;
  }
}
