import { createHmac, randomBytes } from 'node:crypto';

/**
 * Plays Stripe's side of webhooks: events shaped like Stripe's `event` object (API version
 * 2025-03-31, where the billing period sits on the subscription items) carrying a `subscription`
 * object, delivered with `Stripe-Signature: t=…,v1=…` as Stripe documents it.
 */
export interface SubscriptionState {
  id: string;
  customer: string;
  status: string;
  organizationId?: string;
  plan?: string;
  cancelAtPeriodEnd?: boolean;
  periodStart?: number;
  periodEnd?: number;
}

/**
 * The `Stripe-Signature` header Stripe sends, computed here from Stripe's documentation ("Verify manually") and never
 * with the product's code, so a change to what the product signs or checks cannot pass by changing both sides:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw payload>" keyed with the endpoint's secret>`.
 */
export function stripeSignatureHeader(payload: string, secret: string, timestamp: number): string {
  const signedPayload = `${timestamp}.${payload}`;
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(signedPayload, 'utf8').digest('hex')}`;
}

export function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

export function subscriptionEvent(type: string, s: SubscriptionState, created: number, id = stripeId('evt')) {
  return {
    id,
    object: 'event',
    api_version: '2025-03-31.basil',
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: {
      object: {
        id: s.id,
        object: 'subscription',
        customer: s.customer,
        status: s.status,
        cancel_at_period_end: s.cancelAtPeriodEnd ?? false,
        created: created - 100,
        currency: 'usd',
        metadata: s.organizationId ? { organization_id: s.organizationId } : {},
        items: {
          object: 'list',
          data: [
            {
              id: stripeId('si'),
              object: 'subscription_item',
              current_period_start: s.periodStart ?? created,
              current_period_end: s.periodEnd ?? created + 30 * 86_400,
              price: {
                id: stripeId('price'),
                object: 'price',
                lookup_key: s.plan ?? null,
                currency: 'usd',
                unit_amount: 2900,
              },
              quantity: 1,
            },
          ],
          has_more: false,
        },
      },
    },
  };
}

/** Delivers a payload to a webhook endpoint as Stripe would; `timestamp` and `secret` can be set to test refusals. */
export async function deliver(
  url: string,
  payload: unknown,
  opts: { secret: string; timestamp?: number; header?: string | null; contentType?: string },
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const t = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const header = opts.header === undefined ? stripeSignatureHeader(body, opts.secret, t) : opts.header;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': opts.contentType ?? 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      ...(header !== null ? { 'stripe-signature': header } : {}),
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}
