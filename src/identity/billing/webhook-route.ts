import { Type } from 'typebox';
import { Value } from 'typebox/value';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { errorResponses, HttpError } from '../../kit/errors.ts';
import { verifyStripeSignature } from './stripe-signature.ts';
import { applyStripeEvent, type StripeEvent } from './stripe-events.ts';
import { PUBLIC } from '../access/rules.ts';

const EventShape = Type.Object({
  // Stripe's ids and types are short ASCII words (evt_…, customer.subscription.updated); anything else is not an event of theirs.
  id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,255}$' }),
  type: Type.String({ pattern: '^[a-z0-9_.]{1,255}$' }),
  created: Type.Integer({ minimum: 0, maximum: 1e12 }),
  data: Type.Object({ object: Type.Record(Type.String(), Type.Unknown()) }),
});

const Received = Type.Object({
  received: Type.Literal(true),
  outcome: Type.String({
    description:
      'applied, duplicate (event id seen before), stale (older than the newest applied), illegal_transition, unsupported_status, unknown_subscription, other_subscription or ignored (a type not acted on)',
  }),
});

/**
 * `POST /api/v1/webhooks/stripe`: the payment provider's events, in Stripe's documented format. The
 * body is read raw, because the signature covers the exact bytes; nothing is parsed before the
 * signature holds. Every verified event is answered 200 (Stripe retries anything else for days), with
 * what became of it. The secrets come from IDENTITY_STRIPE_WEBHOOK_SECRET and are never logged.
 */
export async function registerStripeWebhook(
  app: App,
  deps: { db: Database; secrets: readonly string[] },
): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: 512 * 1024 },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      '/api/v1/webhooks/stripe',
      {
        config: { access: PUBLIC },
        schema: {
          operationId: 'receiveStripeWebhook',
          tags: ['billing'],
          security: [],
          summary:
            "Subscription events from Stripe: `Stripe-Signature` verified (HMAC-SHA256 of `t.body`, 300 s tolerance), each event id applied once, in the order of the events' own `created`",
          headers: Type.Object({
            'stripe-signature': Type.Optional(Type.String({ description: '`t=<unix seconds>,v1=<hex HMAC-SHA256>`' })),
          }),
          body: Type.Unknown({
            description:
              'A Stripe event object (`customer.subscription.created`, `.updated`, `.deleted` are acted on; others acknowledged)',
          }),
          response: { 200: Received, ...errorResponses(400, 413, 415, 503) },
        },
      },
      async (request) => {
        if (deps.secrets.length === 0)
          throw new HttpError(503, 'UNAVAILABLE', 'webhooks are not configured: set IDENTITY_STRIPE_WEBHOOK_SECRET', {
            headers: { 'retry-after': '3600' },
          });
        const raw = request.body as Buffer;
        const header = request.headers['stripe-signature'];
        verifyStripeSignature(raw, typeof header === 'string' ? header : undefined, deps.secrets);
        let event: unknown;
        try {
          event = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new HttpError(400, 'VALIDATION_ERROR', 'the body is not JSON');
        }
        if (!Value.Check(EventShape, event))
          throw new HttpError(
            400,
            'VALIDATION_ERROR',
            'the body is not a Stripe event (id, type, created, data.object)',
          );
        const outcome = await applyStripeEvent(deps.db, event as StripeEvent);
        request.log.info(
          { event_id: (event as StripeEvent).id, type: (event as StripeEvent).type, outcome },
          'stripe event',
        );
        return { received: true as const, outcome };
      },
    );
  });
}
