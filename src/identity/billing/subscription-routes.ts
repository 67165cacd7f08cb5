import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Timestamp } from '../../kit/schemas.ts';
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { Errors, Nullable, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { findOrganization } from '../organizations/store.ts';
import { marketCaller, MarketSecurity as security } from '../access/market.ts';
import { isMember } from '../marketplace/permissions.ts';
import { MARKET } from '../access/rules.ts';
import { createSubscription, findSubscription, updateSubscription } from './subscription-store.ts';
import type { PLAN_TIERS, SUBSCRIPTION_STATUSES } from './subscription-transitions.ts';

const Plan = Type.Union([
  Type.Literal('free'),
  Type.Literal('starter'),
  Type.Literal('pro'),
  Type.Literal('enterprise'),
]);
const Status = Type.Union([
  Type.Literal('active'),
  Type.Literal('trialing'),
  Type.Literal('past_due'),
  Type.Literal('canceled'),
  Type.Literal('unpaid'),
]);
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _same: [
  Same<Static<typeof Plan>, (typeof PLAN_TIERS)[number]>,
  Same<Static<typeof Status>, (typeof SUBSCRIPTION_STATUSES)[number]>,
] = [true, true];
void _same;

const SubscriptionOut = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  plan_tier: Plan,
  status: Status,
  current_period_start: Nullable(Timestamp),
  current_period_end: Nullable(Timestamp),
  payment_subscription_id: Nullable(Type.String()),
  payment_customer_id: Nullable(Type.String()),
  cancel_at_period_end: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const PaymentId = Type.String({ minLength: 1, maxLength: 255 });
const NewSubscription = Type.Object(
  {
    plan_tier: Type.Optional(Plan),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('trialing')])),
    current_period_start: Type.Optional(Timestamp),
    current_period_end: Type.Optional(Timestamp),
    payment_subscription_id: Type.Optional(PaymentId),
    payment_customer_id: Type.Optional(PaymentId),
    cancel_at_period_end: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const SubscriptionChanges = Type.Object(
  {
    plan_tier: Type.Optional(Plan),
    status: Type.Optional(Status),
    current_period_start: Type.Optional(Nullable(Timestamp)),
    current_period_end: Type.Optional(Nullable(Timestamp)),
    payment_subscription_id: Type.Optional(Nullable(PaymentId)),
    payment_customer_id: Type.Optional(Nullable(PaymentId)),
    cancel_at_period_end: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

const tags = ['billing'];
const Params = Type.Object({ id: Uuid });

/** The organization the caller is a member of (or any, for a platform admin); 404 otherwise. */
async function visibleOrg(db: Database, request: FastifyRequest, id: string) {
  const org = await findOrganization(db, id);
  if (!org || !(await isMember(db, marketCaller(request), org.id)))
    throw new HttpError(404, 'NOT_FOUND', `no organization ${id}`);
  return org;
}

function adminOnly(request: FastifyRequest): void {
  if (!marketCaller(request).platformAdmin)
    throw new HttpError(
      403,
      'FORBIDDEN',
      'only a platform admin changes a subscription by hand; the payment provider moves it',
    );
}

/**
 * An organization's subscription under /api/v1/organizations/:id/subscription, with the marketplace's
 * access (MARKET). Members read it; only platform admins make or change it by hand —
 * normally the payment provider's webhooks move it.
 */
export async function registerSubscriptionRoutes(app: App, deps: { db: Database }): Promise<void> {
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      createSubscriptionRoute(scope, deps.db);
      getSubscriptionRoute(scope, deps.db);
      updateSubscriptionRoute(scope, deps.db);
    },
    { prefix: '/api/v1' },
  );
}

function createSubscriptionRoute(scope: TypedScope, db: Database): void {
  scope.post(
    '/organizations/:id/subscription',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'createSubscription',
        tags,
        security,
        summary: "Start the organization's one subscription (platform admins; 409 when it has one)",
        params: Params,
        body: NewSubscription,
        response: { 201: SubscriptionOut, ...Errors },
      },
    },
    async (request, reply) => {
      const org = await visibleOrg(db, request, request.params.id);
      adminOnly(request);
      return reply.code(201).send(await createSubscription(db, org.id, request.body));
    },
  );
}

function getSubscriptionRoute(scope: TypedScope, db: Database): void {
  scope.get(
    '/organizations/:id/subscription',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'getSubscription',
        tags,
        security,
        summary: "The organization's subscription (its members and platform admins)",
        params: Params,
        response: { 200: SubscriptionOut, ...Errors },
      },
    },
    async (request) => {
      const org = await visibleOrg(db, request, request.params.id);
      const s = await findSubscription(db, org.id);
      if (!s) throw new HttpError(404, 'NOT_FOUND', 'this organization has no subscription');
      return s;
    },
  );
}

function updateSubscriptionRoute(scope: TypedScope, db: Database): void {
  scope.patch(
    '/organizations/:id/subscription',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'updateSubscription',
        tags,
        security,
        summary:
          'Change a subscription by hand (platform admins): the same status moves as the webhooks, 409 for any other',
        params: Params,
        body: SubscriptionChanges,
        response: { 200: SubscriptionOut, ...Errors },
      },
    },
    async (request) => {
      const org = await visibleOrg(db, request, request.params.id);
      adminOnly(request);
      const s = await updateSubscription(db, org.id, request.body);
      if (!s) throw new HttpError(404, 'NOT_FOUND', 'this organization has no subscription');
      return s;
    },
  );
}
