import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { callerOf } from '../../kit/auth/admin-guard.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { CreationPosition } from '../admin/routes.ts';
import { refuseUnstorableInput } from '../admin/storable-input.ts';
import { getProject } from '../projects/store.ts';
import { Erasure, ErasureRequest } from './schemas.ts';
import {
  ErasureConflictError,
  ErasureInputError,
  ErasureNotFoundError,
  getErasure,
  liftErasureSuppression,
  listErasures,
  MAX_ERASURE_USER_LENGTH,
  requestErasure,
} from './store.ts';
import type { SuppressionCache } from './suppressions.ts';

const errors = errorResponses(400, 401, 403, 404, 409);
const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });
const ErasureParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  erasureId: Type.String({ maxLength: 64 }),
});
const ListQuery = Type.Object(
  {
    ...pageQuery(),
    user_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_ERASURE_USER_LENGTH,
        description:
          'Only the erasures of this `user.id` (exactly as events carry it), compared by its digest: also finds completed ones, which no longer keep the id',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Who asked, as recorded with the erasure: the person a token speaks for, the app, or the service's own token. */
function requesterOf(request: FastifyRequest): string {
  const caller = callerOf(request);
  if (caller?.kind === 'access-token')
    return caller.subject ? `person:${caller.subject}` : `app:${caller.clientId ?? 'unknown'}`;
  return 'admin-token';
}

/** The store's refusals (one rule for the API and the CLI) as the API's errors. */
function httpError(err: unknown): unknown {
  if (err instanceof ErasureInputError) return new HttpError(400, 'VALIDATION_ERROR', err.message);
  if (err instanceof ErasureNotFoundError) return new HttpError(404, 'NOT_FOUND', err.message);
  if (err instanceof ErasureConflictError) return new HttpError(409, 'CONFLICT', err.message);
  return err;
}

/**
 * Erasing a user's events and suppressing the user (docs/ingest.md, "Erasing a user's events"), under /api/v1 for
 * admins only (ADMIN). The handlers record and answer; the worker (worker.ts) deletes.
 */
export function registerErasureRoutes(
  app: App,
  deps: { db: Database; suppressions: SuppressionCache; worker: { wake(): void }; digestKey: Buffer },
): void {
  const { db, suppressions, digestKey } = deps;
  const notFound = (projectId: string) => new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
      admin.addHook('preHandler', refuseUnstorableInput);

      admin.post(
        '/projects/:projectId/erasures',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'createErasure',
            summary: "Erase a user's events, and optionally drop the user's later events",
            description:
              "Every stored event of the project whose `user.id` is `user_id` is deleted in the background, with its hourly counts, its forwarding outbox entries and dead letters; the answer is the erasure, `pending`, to follow with `GET …/erasures/{erasureId}`. Events already sent to a destination's vendor are not erased there.",
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: ErasureRequest,
            response: { 202: Erasure, ...errors },
          },
        },
        async (request, reply) => {
          const { projectId } = request.params;
          const suppress = request.body.suppress ?? false;
          const erasure = await requestErasure(db, {
            projectId,
            userId: request.body.user_id,
            suppress,
            requestedBy: requesterOf(request),
            digestKey,
          }).catch((err: unknown) => {
            throw httpError(err);
          });
          // Before the answer: on this instance a batch sent after the 202 meets the suppression.
          if (suppress) suppressions.changed(projectId);
          // The erasure's id only: the user's id is personal data and stays out of the log.
          request.log.info(
            { erasure: erasure.id, project: projectId, suppress, requestedBy: erasure.requested_by },
            'erasure requested',
          );
          deps.worker.wake();
          return reply.code(202).send(erasure);
        },
      );

      admin.get(
        '/projects/:projectId/erasures',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listErasures',
            summary: "A project's erasures, newest first",
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            querystring: ListQuery,
            response: { 200: pageOf(Erasure), ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          const { limit, cursor, user_id: userId } = request.query;
          const after = decodeCursor(cursor, CreationPosition);
          if (!(await getProject(db, projectId))) throw notFound(projectId);
          const user = userId === undefined ? undefined : { userId, digestKey };
          const rows = await listErasures(db, projectId, { limit: limit + 1, after }, user);
          return toPage(
            rows,
            limit,
            (e) => e.position,
            ({ position: _, ...e }) => e,
          );
        },
      );

      admin.get(
        '/projects/:projectId/erasures/:erasureId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getErasure',
            summary: 'One erasure, with how far it got',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ErasureParams,
            response: { 200: Erasure, ...errors },
          },
        },
        async (request) => {
          const { projectId, erasureId } = request.params;
          const erasure = await getErasure(db, projectId, erasureId);
          if (!erasure) throw new HttpError(404, 'NOT_FOUND', `no erasure ${erasureId} in project ${projectId}`);
          return erasure;
        },
      );

      admin.delete(
        '/projects/:projectId/erasures/:erasureId/suppression',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'liftSuppression',
            summary: "Lift the suppression of the erasure's user: the user's new events are stored again",
            description:
              'Ends every suppression of that `user.id` in the project, whichever erasure asked for it. The erased events stay erased. 409 when the erasure suppressed nobody; lifting again answers the erasure as it is.',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ErasureParams,
            response: { 200: Erasure, ...errors },
          },
        },
        async (request) => {
          const { projectId, erasureId } = request.params;
          const { erasure, lifted } = await liftErasureSuppression(
            db,
            projectId,
            erasureId,
            requesterOf(request),
          ).catch((err: unknown) => {
            throw httpError(err);
          });
          if (lifted) {
            suppressions.changed(projectId);
            request.log.info({ erasure: erasureId, project: projectId }, 'suppression lifted');
          }
          return erasure;
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
