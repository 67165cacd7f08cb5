import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import {
  getInternalUsers,
  MAX_INTERNAL_USERS,
  normalizeInternalUsers,
  setInternalUsers,
} from '../projects/internal-users.ts';
import { ProjectInputError } from '../projects/store.ts';
import { ProjectInternalUsers } from './schemas.ts';
import { refuseUnstorableInput } from './storable-input.ts';

const errors = errorResponses(400, 401, 403, 404);
const ProjectParams = Type.Object({ projectId: Type.String() });

/**
 * A project's internal and test users (docs/ingest.md, "Internal and test users"), under /api/v1, for admins only
 * (ADMIN). Read from the database on every read that leaves them out, so a change needs no cache to hear it.
 */
export function registerInternalUserRoutes(app: App, deps: { db: Database }): void {
  const { db } = deps;
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
      admin.addHook('preHandler', refuseUnstorableInput);

      admin.get(
        '/projects/:projectId/internal-users',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getProjectInternalUsers',
            summary: "The project's internal and test users, left out of reads asking `internal=exclude`",
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            response: { 200: ProjectInternalUsers, ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          const users = await getInternalUsers(db, projectId);
          if (!users) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          return { project_id: projectId, users };
        },
      );

      admin.put(
        '/projects/:projectId/internal-users',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'setProjectInternalUsers',
            summary: "Replace the project's internal and test users",
            description:
              'Counts from the next read on. Repeats are dropped; the order given is kept. An empty list leaves nobody out.',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: Type.Object(
              {
                users: Type.Array(Type.String(), {
                  maxItems: MAX_INTERNAL_USERS,
                  description:
                    'Each 1–256 characters: a `user.id` as events carry it (`ann@example.com`), or a prefix of some ending in `*` (`test-*`: every id starting with `test-`). A `*` elsewhere, or alone, is refused',
                }),
              },
              { additionalProperties: false },
            ),
            response: { 200: ProjectInternalUsers, ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          let users: string[];
          try {
            users = normalizeInternalUsers(request.body.users);
          } catch (err) {
            if (err instanceof ProjectInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
            throw err;
          }
          const stored = await setInternalUsers(db, projectId, users);
          if (!stored) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          return { project_id: projectId, users: stored };
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
