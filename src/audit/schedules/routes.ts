import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { errorResponses } from '../../kit/errors.ts';
import { CALLER, CALLER_SECURITY } from '../auth/access.ts';
import { badRequest } from '../request/resolve.ts';
import { ownSite } from '../sites/owned.ts';
import { SiteParams, siteErrors } from '../sites/schemas.ts';
import { ScheduleError, nextRun, scheduleRule } from './cron.ts';
import { ScheduleBody, ScheduleOut } from './schemas.ts';
import { deleteSchedule, putSchedule } from './store.ts';

/** `/api/v1/sites/{id}/schedule`: when the site runs by itself (one schedule per site). */
export function registerScheduleRoutes(app: App, deps: { db: Database }): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.put(
      '/api/v1/sites/:id/schedule',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'putSiteSchedule',
          summary: "Set the site's schedule: daily, weekly or a cron expression, in a time zone",
          description:
            'The next run is the first slot after now. Slots missed while no instance ran (an outage) are not made up: the schedule runs once when an instance is back, then at its next slot. A slot while the site’s previous run is still pending or running queues nothing (lastError says so).',
          tags: ['sites'],
          security: CALLER_SECURITY,
          params: SiteParams,
          body: ScheduleBody,
          response: { 200: ScheduleOut, ...siteErrors, ...errorResponses(413, 415) },
        },
      },
      async (request) => {
        const site = await ownSite(deps.db, request.auditOwner, request.params.id);
        let rule: ReturnType<typeof scheduleRule>;
        try {
          rule = scheduleRule(request.body);
        } catch (err) {
          if (err instanceof ScheduleError) throw badRequest(err.message);
          throw err;
        }
        await putSchedule(deps.db, site.id, rule, request.body.enabled ?? true, nextRun(rule, new Date()));
        return (await ownSite(deps.db, request.auditOwner, site.id)).schedule!;
      },
    );
    api.delete(
      '/api/v1/sites/:id/schedule',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'deleteSiteSchedule',
          summary: "Remove the site's schedule (it runs only when asked); 204 whether or not it had one",
          tags: ['sites'],
          security: CALLER_SECURITY,
          params: SiteParams,
          response: { 204: Type.Null({ description: 'No schedule now' }), ...siteErrors },
        },
      },
      async (request, reply) => {
        const site = await ownSite(deps.db, request.auditOwner, request.params.id);
        await deleteSchedule(deps.db, site.id);
        return reply.code(204).send(null);
      },
    );
  });
}
