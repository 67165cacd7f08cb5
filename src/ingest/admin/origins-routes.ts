import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import type { ProjectOriginCache } from '../projects/origin-cache.ts';
import { getProjectOrigins, MAX_PROJECT_ORIGINS, normalizeOrigins, setProjectOrigins } from '../projects/origins.ts';
import { ProjectInputError } from '../projects/store.ts';
import { ProjectOrigins } from './schemas.ts';
import { refuseUnstorableInput } from './storable-input.ts';

const errors = errorResponses(400, 401, 403, 404);
const ProjectParams = Type.Object({ projectId: Type.String() });

/** The browser origins a project's events may come from, under /api/v1, for admins only (ADMIN). */
export function registerOriginRoutes(
  app: App,
  deps: { db: Database; serviceOrigins: readonly string[]; cache: ProjectOriginCache },
): void {
  const { db, cache } = deps;
  const answer = (projectId: string, origins: string[]) => ({
    project_id: projectId,
    origins,
    service_origins: [...deps.serviceOrigins],
  });
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
      admin.addHook('preHandler', refuseUnstorableInput);

      admin.get(
        '/projects/:projectId/origins',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getProjectOrigins',
            summary: "The browser origins allowed to send a project's events",
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            response: { 200: ProjectOrigins, ...errors },
          },
        },
        async (request) => {
          const origins = await getProjectOrigins(db, request.params.projectId);
          if (!origins) throw new HttpError(404, 'NOT_FOUND', `no project ${request.params.projectId}`);
          return answer(request.params.projectId, origins);
        },
      );

      admin.put(
        '/projects/:projectId/origins',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'setProjectOrigins',
            summary: "Replace the browser origins allowed to send a project's events",
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: Type.Object(
              {
                origins: Type.Array(Type.String({ maxLength: 2000 }), {
                  maxItems: MAX_PROJECT_ORIGINS,
                  description:
                    '`https://shop.example.com`, `http://localhost:3000`: scheme, host and port only (a trailing `/` is dropped); an empty list allows none beyond INGEST_ALLOWED_ORIGINS',
                }),
              },
              { additionalProperties: false },
            ),
            response: { 200: ProjectOrigins, ...errors },
          },
        },
        async (request) => {
          const { projectId } = request.params;
          let origins: string[];
          try {
            origins = normalizeOrigins(request.body.origins);
          } catch (err) {
            if (err instanceof ProjectInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
            throw err;
          }
          const stored = await setProjectOrigins(db, projectId, origins);
          if (!stored) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          cache.changed(projectId);
          return answer(projectId, stored);
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
