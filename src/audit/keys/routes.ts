import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { ApiKeyLookup } from '../../kit/api-keys/lookup.ts';
import { ApiKeyInputError, type ApiKeyRecord } from '../../kit/api-keys/table.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus, errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { PERSON, PERSON_SECURITY } from '../auth/access.ts';
import { AUDIT_KEYS } from '../auth/keys.ts';

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it by' }),
  createdAt: Timestamp,
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});
export const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'The key itself: in this answer only, stored as a hash' }),
});
/** Where a page of keys in creation order stops: the exact creation time and the id. */
const Position = Type.Tuple([Type.String({ maxLength: 64 }), Type.String({ maxLength: 200 })]);
const errors = errorResponses(400, 401, 403, 404, 503);

const out = (k: ApiKeyRecord) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.created_at,
  revokedAt: k.revoked_at,
});

/**
 * `/api/v1/keys`: a person's API keys for CI, made, listed and revoked in the console. A key speaks for the person who
 * made it (its runs are theirs); an API key cannot call these routes (PERSON). Keys made with `platform audit keys
 * create` belong to no one and are not listed here.
 */
export function registerKeyRoutes(app: App, deps: { db: Database; keys: ApiKeyLookup }): void {
  const { db } = deps;
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.get(
      '/api/v1/keys',
      {
        config: { access: PERSON },
        schema: {
          operationId: 'listAuditKeys',
          summary: "The caller's API keys, oldest first, revoked ones included (never the keys themselves)",
          tags: ['keys'],
          security: PERSON_SECURITY,
          querystring: Type.Object(pageQuery(), { additionalProperties: false }),
          response: { 200: pageOf(ApiKey), ...errors },
        },
      },
      async (request) => {
        const { limit, cursor } = request.query;
        const rows = await AUDIT_KEYS.list(db, {
          owner: request.auditOwner,
          page: { limit: limit + 1, after: decodeCursor(cursor, Position) },
        });
        return toPage(rows, limit, (k) => k.position, out);
      },
    );

    api.post(
      '/api/v1/keys',
      {
        config: { access: PERSON },
        schema: {
          operationId: 'createAuditKey',
          summary: 'Make an API key that speaks for the caller (shown once), for a CI job',
          tags: ['keys'],
          security: PERSON_SECURITY,
          body: Type.Object(
            {
              name: Type.Optional(
                Type.String({ maxLength: 200, description: 'What the key is for; not blank when given' }),
              ),
            },
            { additionalProperties: false },
          ),
          response: { 201: CreatedApiKey, ...errors },
        },
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) request.body = {};
        },
      },
      async (request, reply) => {
        let created: Awaited<ReturnType<typeof AUDIT_KEYS.create>>;
        try {
          created = await AUDIT_KEYS.create(db, { owner: request.auditOwner, name: request.body.name });
        } catch (err) {
          if (err instanceof ApiKeyInputError) throw new HttpError(400, codeForStatus(400), err.message);
          throw err;
        }
        reply.header('cache-control', 'no-store');
        return reply.code(201).send({ ...out(created!.record), key: created!.key });
      },
    );

    api.delete(
      '/api/v1/keys/:id',
      {
        config: { access: PERSON },
        schema: {
          operationId: 'revokeAuditKey',
          summary: "Revoke one of the caller's API keys: it stops working at once, on every instance",
          tags: ['keys'],
          security: PERSON_SECURITY,
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: { 200: ApiKey, ...errors },
        },
      },
      async (request) => {
        const record = await AUDIT_KEYS.revoke(db, request.params.id, {
          owner: request.auditOwner,
          revoked: deps.keys.revoked,
        });
        if (!record) throw new HttpError(404, codeForStatus(404), `no key ${request.params.id}`);
        return out(record);
      },
    );
  });
}
