import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { CreationPosition } from '../admin/routes.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { refuseUnstorableInput } from '../admin/storable-input.ts';
import { listDeadLetters, replayDeadLetters } from './dead-letters/store.ts';
import {
  createDestination,
  deleteDestination,
  getDestination,
  listDestinations,
  updateDestination,
  DestinationConflictError,
  DestinationInputError,
  DestinationNotFoundError,
} from './destinations/store.ts';
import type { ForwardingGuard } from './guard.ts';
import { CreatedDestination, Credentials, DeadLetter, Destination, Kind, Settings } from './schemas.ts';

const ProjectParams = Type.Object({ projectId: Type.String() });
const DeadLetterPosition = Type.Tuple([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })]);
const DestinationParams = Type.Object({ destinationId: Type.String() });
const errors = errorResponses(400, 401, 403, 404, 409);
const tags = ['admin: forwarding'];

function mapErrors(err: unknown): never {
  if (err instanceof DestinationInputError) throw new HttpError(400, 'VALIDATION_ERROR', err.message);
  if (err instanceof DestinationNotFoundError) throw new HttpError(404, 'NOT_FOUND', err.message);
  if (err instanceof DestinationConflictError) throw new HttpError(409, 'CONFLICT', err.message);
  throw err;
}

/** Destinations and their dead letters under /api/v1, for admins only (ADMIN, checked before the body is read). */
export function registerForwardingAdminRoutes(
  app: App,
  deps: { db: Database; secretKey: Buffer; guard: ForwardingGuard },
): void {
  const { db, secretKey, guard } = deps;
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();
      admin.addHook('preHandler', refuseUnstorableInput);

      const found = async (id: string) => {
        const d = await getDestination(db, id);
        if (!d) throw new HttpError(404, 'NOT_FOUND', `no destination ${id}`);
        return d;
      };

      admin.post(
        '/projects/:projectId/destinations',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'createDestination',
            summary: "Create a destination that receives the project's accepted events",
            tags,
            security: ADMIN_SECURITY,
            params: ProjectParams,
            body: Type.Object(
              {
                name: Type.String({ minLength: 1, maxLength: 200 }),
                kind: Kind,
                base_url: Type.Optional(
                  Type.String({
                    description:
                      "Required for webhook (the URL events are POSTed to); otherwise the vendor's API host (its public API by default), under which the vendor's path goes (once: a URL already ending in it, such as Amplitude's `https://api2.amplitude.com/2/httpapi`, is the endpoint), its query string kept. No fragment. Refused (400) when its host is, or resolves to, an internal address (loopback, private, link-local such as a cloud metadata service) unless INGEST_DESTINATION_ALLOW_HOSTS names it; every delivery checks the address again",
                  }),
                ),
                credentials: Type.Optional(Credentials),
                settings: Type.Optional(Settings),
                enabled: Type.Optional(Type.Boolean({ default: true })),
              },
              { additionalProperties: false },
            ),
            response: { 201: CreatedDestination, ...errors },
          },
        },
        async (request, reply) => {
          const b = request.body;
          try {
            const { destination, shownOnce } = await createDestination(
              db,
              secretKey,
              {
                projectId: request.params.projectId,
                name: b.name,
                kind: b.kind,
                baseUrl: b.base_url,
                credentials: b.credentials,
                settings: b.settings,
                enabled: b.enabled,
              },
              guard,
            );
            return reply.code(201).send({ ...destination, ...(shownOnce?.secret ? { secret: shownOnce.secret } : {}) });
          } catch (err) {
            mapErrors(err);
          }
        },
      );

      admin.get(
        '/projects/:projectId/destinations',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listDestinations',
            summary: "List a project's destinations, oldest first",
            tags,
            security: ADMIN_SECURITY,
            params: ProjectParams,
            querystring: Type.Object(pageQuery(), { additionalProperties: false }),
            response: { 200: pageOf(Destination), ...errors },
          },
        },
        async (request) => {
          const project = await db.query('SELECT 1 FROM projects WHERE id = $1', [request.params.projectId]);
          if (project.rowCount === 0) throw new HttpError(404, 'NOT_FOUND', `no project ${request.params.projectId}`);
          const { limit, cursor } = request.query;
          const rows = await listDestinations(db, request.params.projectId, {
            limit: limit + 1,
            after: decodeCursor(cursor, CreationPosition),
          });
          return toPage(
            rows,
            limit,
            (d) => d.position,
            ({ position: _, ...d }) => d,
          );
        },
      );

      admin.get(
        '/destinations/:destinationId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getDestination',
            summary: 'One destination',
            tags,
            security: ADMIN_SECURITY,
            params: DestinationParams,
            response: { 200: Destination, ...errors },
          },
        },
        async (request) => found(request.params.destinationId),
      );

      admin.patch(
        '/destinations/:destinationId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'updateDestination',
            summary:
              'Change a destination: enable or disable it, rename it, point it elsewhere, replace its credentials',
            tags,
            security: ADMIN_SECURITY,
            params: DestinationParams,
            body: Type.Object(
              {
                name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
                enabled: Type.Optional(Type.Boolean()),
                base_url: Type.Optional(
                  Type.String({
                    description:
                      'A new URL, sealed like the first; the next delivery uses it. Refused on the internal network as at creation',
                  }),
                ),
                credentials: Type.Optional(Credentials),
                settings: Type.Optional(Settings),
              },
              { additionalProperties: false },
            ),
            response: { 200: CreatedDestination, ...errors },
          },
        },
        async (request) => {
          const b = request.body;
          try {
            return await updateDestination(
              db,
              secretKey,
              request.params.destinationId,
              {
                name: b.name,
                enabled: b.enabled,
                baseUrl: b.base_url,
                credentials: b.credentials,
                settings: b.settings,
              },
              guard,
            );
          } catch (err) {
            mapErrors(err);
          }
        },
      );

      admin.delete(
        '/destinations/:destinationId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'deleteDestination',
            summary: 'Delete a destination with its pending events and dead letters',
            tags,
            security: ADMIN_SECURITY,
            params: DestinationParams,
            response: { 204: Type.Null(), ...errors },
          },
        },
        async (request, reply) => {
          if (!(await deleteDestination(db, request.params.destinationId)))
            throw new HttpError(404, 'NOT_FOUND', `no destination ${request.params.destinationId}`);
          return reply.code(204).send(null);
        },
      );

      admin.get(
        '/destinations/:destinationId/dead-letters',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listDeadLetters',
            summary:
              'Events the destination refused or could not take after the configured attempts and time, oldest first',
            tags,
            security: ADMIN_SECURITY,
            params: DestinationParams,
            querystring: Type.Object(pageQuery({ maxLimit: 1000 }), { additionalProperties: false }),
            response: { 200: pageOf(DeadLetter), ...errors },
          },
        },
        async (request) => {
          await found(request.params.destinationId);
          const { limit, cursor } = request.query;
          const rows = await listDeadLetters(db, request.params.destinationId, {
            limit: limit + 1,
            after: decodeCursor(cursor, DeadLetterPosition)?.[0],
          });
          return toPage(rows, limit, (d) => [d.id]);
        },
      );

      admin.post(
        '/destinations/:destinationId/dead-letters/replay',
        {
          config: { access: ADMIN },
          // A bodyless POST replays everything: give the schema an empty object to check.
          preValidation: async (request) => {
            (request as { body: unknown }).body ??= {};
          },
          schema: {
            operationId: 'replayDeadLetters',
            summary: 'Queue dead letters for delivery again (all of the destination, or the ids given)',
            tags,
            security: ADMIN_SECURITY,
            params: DestinationParams,
            body: Type.Object(
              {
                ids: Type.Optional(
                  Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { maxItems: 10_000 }),
                ),
              },
              { additionalProperties: false },
            ),
            response: { 200: Type.Object({ replayed: Type.Integer() }), ...errors },
          },
        },
        async (request) => {
          await found(request.params.destinationId);
          return { replayed: await replayDeadLetters(db, request.params.destinationId, request.body.ids) };
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
