import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { refuseUnstorableInput } from '../admin/storable-input.ts';
import type { TrackingPlanCache } from './cache.ts';
import {
  MAX_PLAN_NAME_LENGTH,
  MAX_PLANNED_EVENTS,
  MAX_PLANNED_PROPERTIES,
  normalizePlan,
  PlanInputError,
  type TrackingPlan,
  type ViolationReason,
} from './plan.ts';
import { Plan, ProjectPlan, Violations } from './schemas.ts';
import { countViolations, getTrackingPlan, setTrackingPlan } from './store.ts';
import { VIOLATION_DAYS, type ViolationTally } from './violations.ts';

const errors = errorResponses(400, 401, 403, 404);
const ProjectParams = Type.Object({ projectId: Type.String() });
/**
 * A project's tracking plan (docs/ingest.md, "Tracking plan"), under /api/v1, for admins only (ADMIN). A saved plan
 * is announced to every instance's cache, so it holds from their next batch.
 */
export function registerTrackingPlanRoutes(
  app: App,
  deps: { db: Database; cache: TrackingPlanCache; tally: ViolationTally },
): void {
  const { db } = deps;
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
      admin.addHook('preHandler', refuseUnstorableInput);

      admin.get(
        '/projects/:projectId/tracking-plan',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getProjectTrackingPlan',
            summary: "The project's tracking plan (mode `off` and no events when none was set)",
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            response: { 200: ProjectPlan, ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          const plan = await getTrackingPlan(db, projectId);
          if (!plan) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          return { project_id: projectId, ...plan };
        },
      );

      admin.put(
        '/projects/:projectId/tracking-plan',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'setProjectTrackingPlan',
            summary: "Replace the project's tracking plan",
            description: `Holds from each instance's next batch. At most ${MAX_PLANNED_EVENTS} events of at most ${MAX_PLANNED_PROPERTIES} properties, names 1–${MAX_PLAN_NAME_LENGTH} characters, none repeated; unknown fields are refused.`,
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: Plan,
            response: { 200: ProjectPlan, ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          let plan: TrackingPlan;
          try {
            plan = normalizePlan(request.body as TrackingPlan);
          } catch (err) {
            if (err instanceof PlanInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
            throw err;
          }
          if (!(await setTrackingPlan(db, projectId, plan)))
            throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          deps.cache.changed(projectId);
          return { project_id: projectId, ...plan };
        },
      );

      admin.get(
        '/projects/:projectId/tracking-plan/violations',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getProjectTrackingPlanViolations',
            summary: 'Events that broke the tracking plan, by event and reason, over the last hours',
            description: `Counted in \`report\` and \`enforce\` modes, by the hour; kept ${VIOLATION_DAYS} days. Counts reach storage every few seconds from each instance.`,
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            querystring: Type.Object(
              {
                hours: Type.Integer({
                  minimum: 1,
                  maximum: VIOLATION_DAYS * 24,
                  default: 24,
                  description: 'How many hours back, the current one included',
                }),
              },
              { additionalProperties: false },
            ),
            response: { 200: Violations, ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          if (!(await getTrackingPlan(db, projectId))) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          await deps.tally.flush();
          const hour = 3_600_000;
          const to = new Date(Math.floor(Date.now() / hour) * hour + hour);
          const from = new Date(to.getTime() - request.query.hours * hour);
          const items = await countViolations(db, projectId, from, to);
          return {
            project_id: projectId,
            from: from.toISOString(),
            to: to.toISOString(),
            total: items.reduce((sum, i) => sum + i.count, 0),
            items: items as { event: string; reason: ViolationReason; count: number }[],
          };
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
