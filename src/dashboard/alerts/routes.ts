import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { decodeCursor, toPage } from '../../kit/paging.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, IdPosition, ListQuery, bearer } from '../schemas.ts';
import { changeRule, createRule, removeRule, ruleOf, silenceRule } from './manage.ts';
import { AlertRule, AlertRuleBody, AlertRuleListQuery, Delivery, HistoryEntry, SilenceBody } from './schemas.ts';
import { listHistory, listRules } from './store.ts';
import { alertRule, historyEntry } from './view.ts';

const tags = ['alerts'];
const page = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ items: Type.Array(item), next: Type.Union([Type.String(), Type.Null()]) });

/** Alert rules: viewers see them and their history; editors make, change, silence and delete them. */
export function registerAlertRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/alert-rules',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listAlertRules',
        tags,
        security: bearer,
        summary: "The tenant's alert rules with their state, oldest first",
        querystring: AlertRuleListQuery,
        response: { 200: page(AlertRule), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { limit, cursor, dashboardId } = request.query;
      const after = decodeCursor(cursor, IdPosition)?.[0] ?? 0;
      const rows = await listRules(ctx.db, currentUser(request), { limit: limit + 1, after, dashboardId });
      return toPage(rows, limit, (r) => [r.id], alertRule);
    },
  );

  app.post(
    '/api/v1/alert-rules',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'createAlertRule',
        tags,
        security: bearer,
        summary: 'Make an alert rule on a saved query or a widget (editor); its query runs with your rights',
        body: AlertRuleBody,
        response: { 201: AlertRule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await createRule(ctx, request, request.body);
      reply.header('location', `/api/v1/alert-rules/${row.id}`);
      return reply.code(201).send(alertRule(row));
    },
  );

  app.get(
    '/api/v1/alert-rules/:id',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getAlertRule',
        tags,
        security: bearer,
        summary: 'An alert rule and its state',
        params: IdParams,
        response: { 200: AlertRule, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => alertRule(await ruleOf(ctx, currentUser(request), request.params.id)),
  );

  app.put(
    '/api/v1/alert-rules/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'updateAlertRule',
        tags,
        security: bearer,
        summary: 'Replace an alert rule (editor): it starts over at ok and runs with your rights',
        params: IdParams,
        body: AlertRuleBody,
        response: { 200: AlertRule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => alertRule(await changeRule(ctx, request, request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/alert-rules/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'deleteAlertRule',
        tags,
        security: bearer,
        summary: 'Delete an alert rule (editor)',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await removeRule(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/api/v1/alert-rules/:id/silence',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'silenceAlertRule',
        tags,
        security: bearer,
        summary: 'Silence the notifications of a rule for a number of minutes (editor); it is still evaluated',
        params: IdParams,
        body: SilenceBody,
        response: { 200: AlertRule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => alertRule(await silenceRule(ctx, request, request.params.id, request.body.minutes)),
  );

  app.delete(
    '/api/v1/alert-rules/:id/silence',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'unsilenceAlertRule',
        tags,
        security: bearer,
        summary: "Lift a rule's silence (editor)",
        params: IdParams,
        response: { 200: AlertRule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => alertRule(await silenceRule(ctx, request, request.params.id, null)),
  );

  app.get(
    '/api/v1/alert-rules/:id/history',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listAlertRuleHistory',
        tags,
        security: bearer,
        summary: "A rule's state changes, newest first",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: page(HistoryEntry), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const rule = await ruleOf(ctx, currentUser(request), request.params.id);
      const { limit, cursor } = request.query;
      const before = decodeCursor(cursor, IdPosition)?.[0] ?? null;
      const rows = await listHistory(ctx.db, rule.id, { limit: limit + 1, before });
      return toPage(rows, limit, (r) => [r.id], historyEntry);
    },
  );

  app.get(
    '/api/v1/alert-rules/:id/deliveries',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listAlertRuleDeliveries',
        tags,
        security: bearer,
        summary: "A rule's latest notifications per channel and how their delivery went, newest first (at most 50)",
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(Delivery) }), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const rule = await ruleOf(ctx, currentUser(request), request.params.id);
      const r = await ctx.db.query<{
        id: number;
        channel_id: number;
        type: string;
        reminder: boolean;
        reason: string;
        status: 'pending' | 'sent' | 'failed';
        attempts: number;
        last_error: string | null;
        sent_at: Date | null;
        created_at: Date;
      }>(
        `SELECT id::int AS id, channel_id::int AS channel_id, payload->>'type' AS type,
                COALESCE((payload->'data'->>'reminder')::boolean, false) AS reminder,
                COALESCE(payload->'data'->>'reason', '') AS reason, status, attempts, last_error,
                sent_at, created_at FROM notification_deliveries WHERE rule_id = $1 ORDER BY id DESC LIMIT 50`,
        [rule.id],
      );
      return {
        items: r.rows.map((d) => ({
          id: d.id,
          channelId: d.channel_id,
          type: d.type,
          reminder: d.reminder,
          reason: d.reason,
          status: d.status,
          attempts: d.attempts,
          lastError: d.last_error,
          sentAt: d.sent_at ? d.sent_at.toISOString() : null,
          createdAt: d.created_at.toISOString(),
        })),
      };
    },
  );
}
