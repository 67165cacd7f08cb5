import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { refuseUnstorableInput } from '../admin/storable-input.ts';
import { reportView } from './maintain.ts';
import { listPartitions, partitionView } from './partitions.ts';
import type { PartitionMaintenance, RetentionConfig } from './schedule.ts';
import {
  defaultDays,
  getProjectRetention,
  MAX_RETENTION_DAYS,
  RetentionInputError,
  RetentionProjectNotFoundError,
  setProjectRetention,
} from './settings.ts';

// One schema rather than a union of integer and null, so a bad value gets one message ("must be >= 1") instead of
// one per branch.
const Days = Type.Unsafe<number | null>({
  type: ['integer', 'null'],
  minimum: 1,
  maximum: MAX_RETENTION_DAYS,
  description: "Days a day's events are kept once it is past; null: follow INGEST_RETENTION_DAYS",
});
const ProjectRetention = Type.Object({
  project_id: Type.String(),
  days: Type.Union([Type.Integer(), Type.Null()], { description: "The project's own setting; null: the default" }),
  default_days: Type.Union([Type.Integer(), Type.Null()], {
    description: 'INGEST_RETENTION_DAYS; null: for ever',
  }),
  effective_days: Type.Union([Type.Integer(), Type.Null()], { description: 'What applies; null: for ever' }),
});
const Partition = Type.Object({
  name: Type.String(),
  from: Type.Union([Type.String(), Type.Null()], { description: 'null: every earlier day, or the default partition' }),
  to: Type.Union([Type.String(), Type.Null()], { description: 'Excluded; null for the default partition' }),
  default: Type.Boolean({ description: 'Holds events of days without a partition of their own' }),
  estimated_rows: Type.Number({ description: "PostgreSQL's estimate as of the last ANALYZE" }),
  bytes: Type.Number(),
});
const Report = Type.Object({
  created: Type.Array(Type.String()),
  dropped: Type.Array(Type.String()),
  deleted_from_default: Type.Integer(),
  postponed: Type.Array(Type.String(), {
    description: 'Left for the next run: another instance was at it, or a lock on events was not had within 5 s',
  }),
});
const ProjectParams = Type.Object({ projectId: Type.String() });
const errors = errorResponses(400, 401, 403, 404);
const tags = ['retention'];

/** Retention per project, the partitions of `events` and a maintenance run on demand, under /api/v1, for admins. */
export function registerRetentionRoutes(
  app: App,
  deps: { db: Database; config: RetentionConfig; maintenance: PartitionMaintenance },
): void {
  const { db, config } = deps;
  const mapErrors = (err: unknown): never => {
    if (err instanceof RetentionProjectNotFoundError) throw new HttpError(404, 'NOT_FOUND', err.message);
    if (err instanceof RetentionInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
    throw err;
  };
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
      admin.addHook('preHandler', refuseUnstorableInput);

      admin.get(
        '/projects/:projectId/retention',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getProjectRetention',
            summary: "A project's retention: its own setting, the default, and what applies",
            tags,
            security: ADMIN_SECURITY,
            params: ProjectParams,
            response: { 200: ProjectRetention, ...errors },
          },
        },
        async (request) => getProjectRetention(db, request.params.projectId, config.retentionDays).catch(mapErrors),
      );

      admin.put(
        '/projects/:projectId/retention',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'setProjectRetention',
            summary: "Set a project's retention in days (null: follow INGEST_RETENTION_DAYS)",
            description:
              'Applied by the next partition maintenance. A partition holds every project of its day and is dropped once it has expired for each of them (docs/ingest.md, Retention).',
            tags,
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: Type.Object({ days: Days }, { additionalProperties: false }),
            response: { 200: ProjectRetention, ...errors },
          },
        },
        async (request) =>
          setProjectRetention(db, request.params.projectId, request.body.days, config.retentionDays).catch(mapErrors),
      );

      admin.get(
        '/retention',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getRetention',
            summary: 'The default retention and the partitions of events, oldest first',
            tags,
            security: ADMIN_SECURITY,
            response: {
              200: Type.Object({
                default_days: Type.Union([Type.Integer(), Type.Null()]),
                partitions: Type.Array(Partition),
              }),
              ...errors,
            },
          },
        },
        async () => ({
          default_days: defaultDays(config.retentionDays),
          partitions: (await listPartitions(db)).map(partitionView),
        }),
      );

      admin.post(
        '/retention/maintain',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'maintainPartitions',
            summary: 'Make the partitions ahead and drop the expired ones now, as the scheduled run does',
            tags,
            security: ADMIN_SECURITY,
            response: { 200: Report, ...errors },
          },
        },
        async () => reportView(await deps.maintenance.run()),
      );
    },
    { prefix: '/api/v1' },
  );
}
