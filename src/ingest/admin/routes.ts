import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { ErrorBody } from '../errors.ts';
import type { KeyResolver } from '../projects/key-resolver.ts';
import {
  createApiKey, createProject, getProject, listApiKeys, listProjects, revokeApiKey,
  PROJECT_ID_PATTERN, ProjectExistsError, ProjectNotFoundError,
} from '../projects/store.ts';
import type { AdminGuard } from './auth.ts';
import { refuseUnstorableInput } from './storable-input.ts';

const Project = Type.Object({ id: Type.String(), name: Type.String(), created_at: Type.String() });
const ApiKey = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  created_at: Type.String(),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});
const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'The key itself: shown only in this answer, stored only as a hash' }),
});
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const security = [{ adminToken: [] }];
const ProjectParams = Type.Object({ projectId: Type.String() });

/** Projects and their API keys, under /v1/admin, behind the admin token. */
export function registerAdminRoutes(app: App, deps: { db: Database; keys: KeyResolver; requireAdmin: AdminGuard }): void {
  const { db, keys } = deps;
  app.register(async (plugin) => {
    const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
    admin.addHook('preHandler', deps.requireAdmin);
    admin.addHook('preHandler', refuseUnstorableInput);

    admin.post('/projects', {
      schema: {
        summary: 'Create a project',
        tags: ['admin'],
        security,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          id: Type.Optional(Type.String({ pattern: PROJECT_ID_PATTERN.source, description: 'Chosen project id; generated when absent' })),
        }, { additionalProperties: false }),
        response: { 201: Project, ...errors },
      },
    }, async (request, reply) => {
      try {
        return reply.code(201).send(await createProject(db, request.body));
      } catch (err) {
        if (err instanceof ProjectExistsError) throw new HttpError(409, 'conflict', err.message);
        throw err;
      }
    });

    admin.get('/projects', {
      schema: { summary: 'List projects', tags: ['admin'], security, response: { 200: Type.Object({ projects: Type.Array(Project) }), ...errors } },
    }, async () => ({ projects: await listProjects(db) }));

    admin.get('/projects/:projectId', {
      schema: { summary: 'One project', tags: ['admin'], security, params: ProjectParams, response: { 200: Project, ...errors } },
    }, async (request) => {
      const project = await getProject(db, request.params.projectId);
      if (!project) throw new HttpError(404, 'not_found', `no project ${request.params.projectId}`);
      return project;
    });

    admin.post('/projects/:projectId/keys', {
      schema: {
        summary: 'Create an API key for a project (the key is shown once)',
        tags: ['admin'],
        security,
        params: ProjectParams,
        body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
        response: { 201: CreatedApiKey, ...errors },
      },
      // Every field is optional, so a POST without a body is a valid request.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    }, async (request, reply) => {
      try {
        const { key, record } = await createApiKey(db, request.params.projectId, request.body.name ?? '');
        reply.header('cache-control', 'no-store');
        return reply.code(201).send({ ...record, key });
      } catch (err) {
        if (err instanceof ProjectNotFoundError) throw new HttpError(404, 'not_found', err.message);
        throw err;
      }
    });

    admin.get('/projects/:projectId/keys', {
      schema: { summary: 'List a project\'s API keys (never the keys themselves)', tags: ['admin'], security, params: ProjectParams, response: { 200: Type.Object({ keys: Type.Array(ApiKey) }), ...errors } },
    }, async (request) => {
      if (!(await getProject(db, request.params.projectId))) throw new HttpError(404, 'not_found', `no project ${request.params.projectId}`);
      return { keys: await listApiKeys(db, request.params.projectId) };
    });

    admin.delete('/projects/:projectId/keys/:keyId', {
      schema: {
        summary: 'Revoke an API key',
        tags: ['admin'],
        security,
        params: Type.Object({ projectId: Type.String(), keyId: Type.String() }),
        response: { 200: ApiKey, ...errors },
      },
    }, async (request) => {
      const record = await revokeApiKey(db, request.params.keyId, request.params.projectId);
      if (!record) throw new HttpError(404, 'not_found', `no key ${request.params.keyId} in project ${request.params.projectId}`);
      keys.forget();
      return record;
    });
  }, { prefix: '/v1/admin' });
}
