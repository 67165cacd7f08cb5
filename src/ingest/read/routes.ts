import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { getInternalUsers, internalUsersOf, type InternalUsers } from '../projects/internal-users.ts';
import { getProject } from '../projects/store.ts';
import { BUCKET_MS, countEvents, MAX_BUCKETS, type Bucket } from './counts.ts';
import { getEvent, listEvents } from './store.ts';
import { MAX_TYPES, type TypeFilter } from './type-filter.ts';
import { CountsAnswer, EventSummary, FullEvent } from './schema.ts';

const Time = Type.String({ format: 'date-time' });
const Text = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description }));
// Repeated in the query (`?type=a&type=b`), as HTML forms send several values of one name; one value is a list of one.
const Texts = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: MAX_TYPES, description }));
const Types = {
  type: Texts(
    `Only events of this \`event.type\`. Repeat it for events of any of several (\`?type=page.view&type=ui.click\`), at most ${MAX_TYPES}`,
  ),
  exclude_type: Texts(
    `Events of every \`event.type\` but this one. Repeat it to leave out several, at most ${MAX_TYPES}. Not with \`type\``,
  ),
};
const Internal = {
  internal: Type.Optional(
    Type.Union([Type.Literal('include'), Type.Literal('exclude')], {
      default: 'include',
      description:
        "`exclude`: leave out the events of the project's internal and test users (`GET /api/v1/projects/{id}/internal-users`), as they are at this read; events without a `user.id` stay. With `user` naming one of them, nothing is found",
    }),
  ),
};
const Filters = {
  ...Types,
  ...Internal,
  session: Text('Only events of this `session.id`'),
  user: Text('Only events of this `user.id`'),
};
const ListQuery = Type.Object(
  {
    ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
    ...Filters,
    from: Type.Optional({ ...Time, description: 'Events at or after this instant (`event.timestamp`)' }),
    to: Type.Optional({ ...Time, description: 'Events before this instant' }),
  },
  { additionalProperties: false },
);
const CountsQuery = Type.Object(
  {
    ...Types,
    ...Internal,
    from: Type.Optional({ ...Time, description: 'Default: 7 days before `to`; taken back to the start of its bucket' }),
    to: Type.Optional({ ...Time, description: 'Default: now; taken on to the end of its bucket' }),
    bucket: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { default: 'day' })),
  },
  { additionalProperties: false },
);
const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });
const EventParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  eventId: Type.String({ maxLength: 256 }),
});
const Position = Type.Tuple([Type.String({ maxLength: 64 }), Type.String({ pattern: '^[0-9]{1,19}$' })]);
const errors = errorResponses(400, 401, 403, 404);
const DAY_MS = 86_400_000;
// Far enough on either side for any event the service accepts (event.timestamp is any valid instant).
const EARLIEST = new Date('0001-01-01T00:00:00Z');
const LATEST = new Date('9999-12-31T00:00:00Z');

/** A range of the query: `from` before `to`, else a 400 naming both. */
function rangeOf(query: { from?: string | undefined; to?: string | undefined }, defaults: { from: Date; to: Date }) {
  const to = query.to ? new Date(query.to) : defaults.to;
  const from = query.from ? new Date(query.from) : defaults.from;
  if (!(from.getTime() < to.getTime()))
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `from (${from.toISOString()}) must be before to (${to.toISOString()})`,
    );
  return { from, to };
}

/** The query's types to keep or to leave out: one kind or the other, else a 400 naming both. */
function typeFilterOf(query: { type?: string[] | undefined; exclude_type?: string[] | undefined }): TypeFilter {
  if (query.type && query.exclude_type)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      'type and exclude_type cannot be given together: name the types to keep, or the types to leave out',
    );
  return { type: query.type, excludeType: query.exclude_type };
}

/**
 * Reading a project's events back, under /api/v1 for admins (the console's Events section): a list newest first with
 * filters and a cursor, counts by type and by hour or day, and one event in full. docs/ingest.md, "Reading events".
 */
export function registerReadRoutes(app: App, deps: { db: Database }): void {
  const { db } = deps;
  const knownProject = async (projectId: string) => {
    if (!(await getProject(db, projectId))) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
  };
  // The project's list as it is now, so a change counts on the next read; undefined: nobody is left out.
  const leftOut = async (
    projectId: string,
    internal: 'include' | 'exclude' | undefined,
  ): Promise<InternalUsers | undefined> => {
    if (internal !== 'exclude') {
      await knownProject(projectId);
      return undefined;
    }
    const users = await getInternalUsers(db, projectId);
    if (!users) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
    return internalUsersOf(users);
  };
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();

      admin.get(
        '/projects/:projectId/events',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listEvents',
            summary:
              "A project's events, newest first (by event.timestamp), filtered by types (or all but some), session, user and time, with or without the internal and test users",
            tags: ['read'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            querystring: ListQuery,
            response: { 200: pageOf(EventSummary), ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          const { limit, cursor, session, user } = request.query;
          const types = typeFilterOf(request.query);
          const after = decodeCursor(cursor, Position);
          const range = rangeOf(request.query, { from: EARLIEST, to: LATEST });
          const leaveOut = await leftOut(projectId, request.query.internal);
          const rows = await listEvents(
            db,
            { projectId, ...range, ...types, session, user, leaveOut },
            { limit: limit + 1, after },
          );
          return toPage(
            rows,
            limit,
            (e) => e.position,
            ({ position: _, ...e }) => e,
          );
        },
      );

      admin.get(
        '/projects/:projectId/event-counts',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'countEvents',
            summary: "Counts of a project's events by type and by hour or day over a range",
            description: `At most ${MAX_BUCKETS} buckets (93 days by the hour). Counted as stored: an event sent twice counts once. With \`internal=exclude\`, the hourly counts less the internal and test users' events, read through the (project, user.id, time) index rather than every event of the range.`,
            tags: ['read'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            querystring: CountsQuery,
            response: { 200: CountsAnswer, ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          const types = typeFilterOf(request.query);
          const bucket: Bucket = request.query.bucket ?? 'day';
          const now = new Date();
          const to = request.query.to ? new Date(request.query.to) : now;
          const range = rangeOf(request.query, { from: new Date(to.getTime() - 7 * DAY_MS), to });
          const buckets = Math.ceil((range.to.getTime() - range.from.getTime()) / BUCKET_MS[bucket]);
          if (buckets > MAX_BUCKETS)
            throw new HttpError(
              400,
              'VALIDATION_ERROR',
              `the range holds ${buckets} ${bucket}s; at most ${MAX_BUCKETS}: narrow it or count by the day`,
            );
          const leaveOut = await leftOut(projectId, request.query.internal);
          return countEvents(db, { projectId, ...range, bucket, ...types, leaveOut });
        },
      );

      admin.get(
        '/projects/:projectId/events/:eventId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getEvent',
            summary: 'One event with its full payload, by its event_id',
            tags: ['read'],
            security: ADMIN_SECURITY,
            params: EventParams,
            response: { 200: FullEvent, ...errors },
          },
        },
        async (request, reply) => {
          const { projectId, eventId } = request.params;
          await knownProject(projectId);
          const event = await getEvent(db, projectId, eventId);
          if (!event) throw new HttpError(404, 'NOT_FOUND', `no event ${eventId} in project ${projectId}`);
          reply.header('cache-control', 'no-store');
          return event;
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
