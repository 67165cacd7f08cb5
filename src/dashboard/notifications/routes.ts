import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { newMessageId } from '../../kit/outbound/standard-webhooks.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import { dashboardPublicUrl } from '../config.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, bearer } from '../schemas.ts';
import { testPayload } from '../alerts/message.ts';
import { changeChannel, channelOf, createChannel, removeChannel } from './manage.ts';
import { Channel, CreateChannelBody, CreatedChannel, TestResult, UpdateChannelBody } from './schemas.ts';
import { sendToChannel, type SendDeps } from './send.ts';
import { listChannels } from './store.ts';
import { channel } from './view.ts';

const tags = ['alerts'];

/** Where notifications go: admins manage channels (they hold destinations and secrets), editors list and test them. */
export function registerChannelRoutes(app: App, ctx: DashboardContext, deps: SendDeps): void {
  app.get(
    '/api/v1/alert-channels',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listAlertChannels',
        tags,
        security: bearer,
        summary: "The tenant's notification channels, by name (at most 500)",
        response: { 200: Type.Object({ items: Type.Array(Channel) }), ...errorResponses(401, 429) },
      },
    },
    async (request) => ({ items: (await listChannels(ctx.db, currentUser(request).tenantId)).map(channel) }),
  );

  app.post(
    '/api/v1/alert-channels',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'createAlertChannel',
        tags,
        security: bearer,
        summary: "Add a notification channel (admin); a webhook's signing secret is answered this once",
        body: CreateChannelBody,
        response: { 201: CreatedChannel, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const { row, secret } = await createChannel(ctx, deps.policy, request, request.body);
      reply.header('location', `/api/v1/alert-channels/${row.id}`);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...channel(row), ...(secret ? { secret } : {}) });
    },
  );

  app.put(
    '/api/v1/alert-channels/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'updateAlertChannel',
        tags,
        security: bearer,
        summary: 'Rename a channel or change its addresses or URL (admin); its kind and secret stay',
        params: IdParams,
        body: UpdateChannelBody,
        response: { 200: Channel, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => channel(await changeChannel(ctx, deps.policy, request, request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/alert-channels/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'deleteAlertChannel',
        tags,
        security: bearer,
        summary: 'Delete a channel (admin); rules stop notifying it',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await removeChannel(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/alert-channels/:id/test',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'testAlertChannel',
        tags,
        security: bearer,
        summary: 'Send a test notification to a channel now (editor): answers how the receiver took it',
        params: IdParams,
        response: { 200: TestResult, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const row = await channelOf(ctx, currentUser(request).tenantId, request.params.id);
      const payload = testPayload(`Test of "${row.name}"`, dashboardPublicUrl(ctx.config));
      const result = await sendToChannel(deps, row, newMessageId(), payload);
      return { ok: result.ok, detail: result.detail };
    },
  );
}
