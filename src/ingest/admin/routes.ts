import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import type { ApiKeyLookup } from '../../kit/api-keys/lookup.ts';
import { ApiKeyInputError } from '../../kit/api-keys/table.ts';
import { INGEST_KEYS } from '../projects/keys.ts';
import {
  createProject,
  getProject,
  listProjects,
  PROJECT_ID_PATTERN,
  ProjectExistsError,
  ProjectInputError,
  renameProject,
} from '../projects/store.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { refuseUnstorableInput } from './storable-input.ts';
import { ApiKey, CreatedApiKey, Project } from './schemas.ts';

const errors = errorResponses(400, 401, 403, 404, 409);
const Page = Type.Object(pageQuery(), { additionalProperties: false });
/** Where a page of rows in creation order stops: the exact creation time and the id. */
export const CreationPosition = Type.Tuple([Type.String({ maxLength: 64 }), Type.String({ maxLength: 200 })]);
const ProjectParams = Type.Object({ projectId: Type.String() });

/** Projects and their API keys, under /api/v1, for admins only (ADMIN, checked before the body is read). */
export function registerAdminRoutes(app: App, deps: { db: Database; keys: ApiKeyLookup }): void {
  const { db, keys } = deps;
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
      admin.addHook('preHandler', refuseUnstorableInput);

      admin.post(
        '/projects',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'createProject',
            summary: 'Create a project',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            body: Type.Object(
              {
                name: Type.String({ minLength: 1, maxLength: 200, description: 'Not blank (white space only)' }),
                id: Type.Optional(
                  Type.String({
                    pattern: PROJECT_ID_PATTERN.source,
                    description: 'Chosen project id; generated when absent',
                  }),
                ),
              },
              { additionalProperties: false },
            ),
            response: { 201: Project, ...errors },
          },
        },
        async (request, reply) => {
          try {
            return reply.code(201).send(await createProject(db, request.body));
          } catch (err) {
            if (err instanceof ProjectExistsError) throw new HttpError(409, 'CONFLICT', err.message);
            if (err instanceof ProjectInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
            throw err;
          }
        },
      );

      admin.get(
        '/projects',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listProjects',
            summary: 'List projects, oldest first',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            querystring: Page,
            response: { 200: pageOf(Project), ...errors },
          },
        },
        async (request) => {
          const { limit, cursor } = request.query;
          const rows = await listProjects(db, { limit: limit + 1, after: decodeCursor(cursor, CreationPosition) });
          return toPage(
            rows,
            limit,
            (p) => p.position,
            ({ position: _, ...p }) => p,
          );
        },
      );

      admin.get(
        '/projects/:projectId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getProject',
            summary: 'One project',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            response: { 200: Project, ...errors },
          },
        },
        async (request) => {
          const project = await getProject(db, request.params.projectId);
          if (!project) throw new HttpError(404, 'NOT_FOUND', `no project ${request.params.projectId}`);
          return project;
        },
      );

      admin.patch(
        '/projects/:projectId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'updateProject',
            summary: 'Rename a project (its id, carried by every event, stays)',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: Type.Object(
              { name: Type.String({ minLength: 1, maxLength: 200, description: 'Not blank (white space only)' }) },
              { additionalProperties: false },
            ),
            response: { 200: Project, ...errors },
          },
        },
        async (request) => {
          let project: Awaited<ReturnType<typeof renameProject>>;
          try {
            project = await renameProject(db, request.params.projectId, request.body.name);
          } catch (err) {
            if (err instanceof ProjectInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
            throw err;
          }
          if (!project) throw new HttpError(404, 'NOT_FOUND', `no project ${request.params.projectId}`);
          return project;
        },
      );

      admin.post(
        '/projects/:projectId/keys',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'createApiKey',
            summary: 'Create an API key for a project (the key is shown once)',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: Type.Object(
              {
                name: Type.Optional(
                  Type.String({
                    maxLength: 200,
                    description: 'Not blank when given; leave it out for a key without a name',
                  }),
                ),
              },
              { additionalProperties: false },
            ),
            response: { 201: CreatedApiKey, ...errors },
          },
          // Every field is optional, so a POST without a body is a valid request.
          preValidation: async (request) => {
            if (request.body === undefined || request.body === null) request.body = {};
          },
        },
        async (request, reply) => {
          const { projectId } = request.params;
          let created: Awaited<ReturnType<typeof INGEST_KEYS.create>>;
          try {
            created = await INGEST_KEYS.create(db, { owner: projectId, name: request.body.name });
          } catch (err) {
            if (err instanceof ApiKeyInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
            throw err;
          }
          if (!created) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          reply.header('cache-control', 'no-store');
          return reply.code(201).send({ ...created.record, key: created.key });
        },
      );

      admin.get(
        '/projects/:projectId/keys',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listApiKeys',
            summary: "List a project's API keys, oldest first (never the keys themselves)",
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: ProjectParams,
            querystring: Page,
            response: { 200: pageOf(ApiKey), ...errors },
          },
        },
        async (request) => {
          if (!(await getProject(db, request.params.projectId)))
            throw new HttpError(404, 'NOT_FOUND', `no project ${request.params.projectId}`);
          const { limit, cursor } = request.query;
          const rows = await INGEST_KEYS.list(db, {
            owner: request.params.projectId,
            page: { limit: limit + 1, after: decodeCursor(cursor, CreationPosition) },
          });
          return toPage(
            rows,
            limit,
            (k) => k.position,
            ({ position: _, ...k }) => k,
          );
        },
      );

      admin.delete(
        '/projects/:projectId/keys/:keyId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'revokeApiKey',
            summary: 'Revoke an API key',
            tags: ['admin'],
            security: ADMIN_SECURITY,
            params: Type.Object({ projectId: Type.String(), keyId: Type.String() }),
            response: { 200: ApiKey, ...errors },
          },
        },
        async (request) => {
          // The key's cached lookups go here and, through the bus, on every instance before the answer.
          const record = await INGEST_KEYS.revoke(db, request.params.keyId, {
            owner: request.params.projectId,
            revoked: keys.revoked,
          });
          if (!record)
            throw new HttpError(
              404,
              'NOT_FOUND',
              `no key ${request.params.keyId} in project ${request.params.projectId}`,
            );
          return record;
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
