import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { RefusedDestinationError, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { ADMIN } from '../access/rules.ts';
import { Errors, Nullable, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope as AdminScope } from '../api/scope.ts';
import { EVENT_TYPES, isEventType } from '../events/catalog.ts';
import { sendSigned, type DeliveryDeps } from './deliver.ts';
import { testBody } from './payload.ts';
import {
  createWebhook,
  deleteWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  updateWebhook,
} from './store.ts';

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'http or https; internal addresses are refused.',
});
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 50,
  uniqueItems: true,
  description: 'Event types to send (`GET /api/v1/webhook-events`); empty: every type.',
});
const WebhookOut = Type.Object({
  id: Uuid,
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const WithSecret = Type.Object({
  webhook: WebhookOut,
  secret: Type.String({ description: 'The signing secret (`whsec_…`, Standard Webhooks): in this answer only.' }),
});
const DeliveryOut = Type.Object({
  id: Type.String(),
  event: Type.String(),
  change_id: Nullable(Type.String({ description: 'The change-log entry sent; null for a test.' })),
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  next_attempt_at: Nullable(Timestamp),
  last_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Timestamp,
  delivered_at: Nullable(Timestamp),
});
const TestOut = Type.Object({
  delivered: Type.Boolean(),
  status: Nullable(Type.Integer({ description: "The receiver's HTTP status, when it answered." })),
  error: Nullable(Type.String()),
});
const ById = Type.Object({ id: Uuid });
const Create = Type.Object(
  {
    url: Url,
    description: Type.Optional(Type.String({ maxLength: 500 })),
    events: Type.Optional(Events),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const Patch = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    events: Type.Optional(Events),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
const DeliveryQuery = Type.Object(
  {
    ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
    state: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])),
  },
  { additionalProperties: false },
);
const Position = Type.Tuple([Type.String({ pattern: '^[1-9][0-9]{0,18}$' })]);
const tags = ['webhooks'];

export interface WebhookRouteDeps extends DeliveryDeps {
  db: Database;
  policy: AddressPolicy;
}

/** Where a webhook may point: http or https, at an address the policy lets the service reach. */
async function checkUrl(policy: AddressPolicy, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpError(400, 'VALIDATION_ERROR', 'url must be an absolute http or https URL');
  }
  try {
    policy.checkUrl(url);
    await policy.resolve(url.hostname);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw new HttpError(400, 'VALIDATION_ERROR', `url: ${err.message}`);
    throw err;
  }
  return url.href;
}

function checkEvents(events: string[] | undefined): string[] | undefined {
  const unknown = events?.filter((e) => !isEventType(e));
  if (unknown?.length)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `unknown event type: ${unknown.join(', ')} (see GET /api/v1/webhook-events)`,
    );
  return events;
}

const notFound = () => new HttpError(404, 'NOT_FOUND', 'no such webhook');

/**
 * Webhooks (ADMIN): identity's events (events/catalog.ts) signed per Standard Webhooks, retried with backoff, with each
 * webhook's delivery log and a test send.
 */
export function registerWebhookRoutes(scope: AdminScope, deps: WebhookRouteDeps): void {
  const base = { config: { access: ADMIN } };
  scope.get(
    '/webhook-events',
    {
      ...base,
      schema: {
        operationId: 'listWebhookEvents',
        tags,
        security: Security,
        summary: 'The event types a webhook can listen for',
        response: {
          200: Type.Object({ events: Type.Array(Type.Object({ type: Type.String(), description: Type.String() })) }),
          ...Errors,
        },
      },
    },
    async () => ({ events: Object.entries(EVENT_TYPES).map(([type, description]) => ({ type, description })) }),
  );
  scope.get(
    '/webhooks',
    {
      ...base,
      schema: {
        operationId: 'listWebhooks',
        tags,
        security: Security,
        summary: 'Every webhook',
        response: { 200: Type.Object({ items: Type.Array(WebhookOut) }), ...Errors },
      },
    },
    async () => ({ items: await listWebhooks(deps.db) }),
  );
  scope.post(
    '/webhooks',
    {
      ...base,
      schema: {
        operationId: 'createWebhook',
        tags,
        security: Security,
        summary: 'Adds a webhook; its signing secret is in this answer only',
        body: Create,
        response: { 201: WithSecret, ...Errors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const created = await createWebhook(deps.db, deps.secretKey, {
        url: await checkUrl(deps.policy, b.url),
        description: b.description ?? '',
        events: checkEvents(b.events) ?? [],
        enabled: b.enabled ?? true,
      });
      return reply.code(201).send(created);
    },
  );
  scope.get(
    '/webhooks/:id',
    {
      ...base,
      schema: {
        operationId: 'getWebhook',
        tags,
        security: Security,
        params: ById,
        response: { 200: WebhookOut, ...Errors },
      },
    },
    async (request) => (await findWebhook(deps.db, request.params.id)) ?? Promise.reject(notFound()),
  );
  scope.patch(
    '/webhooks/:id',
    {
      ...base,
      schema: {
        operationId: 'updateWebhook',
        tags,
        security: Security,
        summary: 'Changes a webhook’s URL, description, events, or pauses it (`enabled: false`)',
        params: ById,
        body: Patch,
        response: { 200: WebhookOut, ...Errors },
      },
    },
    async (request) => {
      const b = request.body;
      const updated = await updateWebhook(deps.db, request.params.id, {
        url: b.url === undefined ? undefined : await checkUrl(deps.policy, b.url),
        description: b.description,
        events: checkEvents(b.events),
        enabled: b.enabled,
      });
      return updated ?? Promise.reject(notFound());
    },
  );
  scope.delete(
    '/webhooks/:id',
    {
      ...base,
      schema: {
        operationId: 'deleteWebhook',
        tags,
        security: Security,
        summary: 'Removes a webhook and its delivery log',
        params: ById,
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      if (!(await deleteWebhook(deps.db, request.params.id))) throw notFound();
      return reply.code(204).send(null);
    },
  );
  scope.post(
    '/webhooks/:id/rotate-secret',
    {
      ...base,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        security: Security,
        summary: 'Replaces the signing secret at once; the new one is in this answer only',
        params: ById,
        response: { 200: Type.Object({ secret: Type.String() }), ...Errors },
      },
    },
    async (request) => {
      const secret = await rotateWebhookSecret(deps.db, deps.secretKey, request.params.id);
      if (!secret) throw notFound();
      return { secret };
    },
  );
  scope.post(
    '/webhooks/:id/test',
    {
      ...base,
      schema: {
        operationId: 'testWebhook',
        tags,
        security: Security,
        summary:
          'Sends a signed `webhook.test` event now and answers what the receiver said (also in the delivery log)',
        params: ById,
        response: { 200: TestOut, ...Errors },
      },
    },
    async (request) => {
      const id = request.params.id;
      const row = await deps.db.query<{ url: string; secret_sealed: string }>(
        'SELECT url, secret_sealed FROM webhooks WHERE id = $1',
        [id],
      );
      const hook = row.rows[0];
      if (!hook) throw notFound();
      const logged = await deps.db.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (webhook_id, event_type, attempts, state) VALUES ($1, 'webhook.test', 1, 'failed')
         RETURNING id::text AS id`,
        [id],
      );
      const deliveryId = logged.rows[0]!.id;
      const result = await sendSigned(
        deps,
        { webhookId: id, url: hook.url, secretSealed: hook.secret_sealed },
        `msg_${deliveryId}`,
        testBody(id),
      );
      await deps.db.query(
        `UPDATE webhook_deliveries SET state = $2, last_status = $3, last_error = $4,
                delivered_at = CASE WHEN $2 = 'delivered' THEN now() END WHERE id = $1`,
        [deliveryId, result.delivered ? 'delivered' : 'failed', result.status, result.error],
      );
      return result;
    },
  );
  scope.get(
    '/webhooks/:id/deliveries',
    {
      ...base,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        security: Security,
        summary: 'A webhook’s delivery log, newest first',
        params: ById,
        querystring: DeliveryQuery,
        response: { 200: pageOf(DeliveryOut), ...Errors },
      },
    },
    async (request) => {
      if (!(await findWebhook(deps.db, request.params.id))) throw notFound();
      const q = request.query;
      const rows = await listDeliveries(deps.db, request.params.id, {
        state: q.state,
        before: decodeCursor(q.cursor, Position)?.[0],
        limit: q.limit + 1,
      });
      return toPage(rows, q.limit, (d) => [d.id]);
    },
  );
  scope.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      ...base,
      schema: {
        operationId: 'retryWebhookDelivery',
        tags,
        security: Security,
        summary: 'Sends a failed delivery again, from its first attempt',
        params: Type.Object({ id: Uuid, deliveryId: Type.String({ pattern: '^[1-9][0-9]{0,18}$' }) }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      if (!(await retryDelivery(deps.db, request.params.id, request.params.deliveryId)))
        throw new HttpError(404, 'NOT_FOUND', 'no failed delivery with this id for this webhook');
      return reply.code(204).send(null);
    },
  );
}
