import { PassThrough } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { getInternalUsers, internalUsersOf } from '../projects/internal-users.ts';
import type { LiveHub, Watcher } from './hub.ts';

/** Watchers one instance serves at most; one more is answered 503. */
export const MAX_WATCHERS = 100;
/** Bytes waiting to be written to one watcher beyond which it is cut: a client that does not read costs no more. */
export const MAX_BUFFERED_BYTES = 256 * 1024;
const KEEPALIVE_MS = 15_000;

const Text = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description }));

/**
 * `GET /api/v1/projects/:projectId/live`: server-sent events of the project's events as they are accepted (`accepted`)
 * and refused (`rejected`, with the reason), filtered here by type, user, session and the project's internal users
 * (`internal=exclude`, the read API's rule: read/internal-filter.ts); `dropped` says how many were
 * left out beyond the stream's rate (hub.ts). `ready` comes first, once the stream is watching. docs/ingest.md, "Live".
 */
export function registerLiveRoutes(app: App, deps: { db: Database; hub: LiveHub }): void {
  const { db, hub } = deps;
  app.register(
    async (plugin) => {
      plugin.withTypeProvider<TypeBoxTypeProvider>().get(
        '/projects/:projectId/live',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'streamEvents',
            summary: "A project's events as they arrive, accepted and rejected (text/event-stream)",
            description:
              'Server-sent events: `ready` once watching, then `accepted` and `rejected` (data: one JSON object each), `dropped` ({count}) when more arrived than the stream passes on (about 400 a second per instance); a comment every 15 s. A client that does not read is cut.',
            tags: ['read'],
            security: ADMIN_SECURITY,
            params: Type.Object({ projectId: Type.String({ maxLength: 64 }) }),
            querystring: Type.Object(
              {
                type: Text('Only events of this `event.type`'),
                user: Text('Only events of this `user.id`'),
                session: Text('Only events of this `session.id`'),
                rejected: Type.Boolean({ default: true, description: 'Rejected events too' }),
                internal: Type.Optional(
                  Type.Union([Type.Literal('include'), Type.Literal('exclude')], {
                    default: 'include',
                    description:
                      "`exclude`: leave out the events, accepted and rejected, of the project's internal and test users (`GET /api/v1/projects/{id}/internal-users`), as listed when the stream opens; events without a `user.id` stay",
                  }),
                ),
              },
              { additionalProperties: false },
            ),
            response: {
              200: Type.String({ description: 'text/event-stream' }),
              ...errorResponses(400, 401, 403, 404, 503),
            },
          },
        },
        async (request, reply) => {
          const { projectId } = request.params;
          // The project's row holds the list: read once, with the stream's filters (a change counts for streams opened after it).
          const internalUsers = await getInternalUsers(db, projectId);
          if (!internalUsers) throw new HttpError(404, 'NOT_FOUND', `no project ${projectId}`);
          if (hub.watcherCount() >= MAX_WATCHERS)
            throw new HttpError(503, 'UNAVAILABLE', 'too many live streams on this instance; retry later', {
              headers: { 'retry-after': '10' },
            });
          const { type, user, session, rejected, internal } = request.query;
          const leaveOut = internal === 'exclude' ? internalUsersOf(internalUsers) : undefined;
          // Sent as a stream through Fastify (not hijacked), so the hooks' headers (CORS for the console) go out too.
          const out = new PassThrough();
          const raw = reply.raw;
          let open = true;
          const end = () => {
            if (!open) return;
            open = false;
            stop();
            clearInterval(keepalive);
            out.destroy();
          };
          const write = (text: string) => {
            if (!open) return;
            if (out.writableLength + raw.writableLength > MAX_BUFFERED_BYTES) {
              request.log.info({ projectId }, 'live events: a watcher that does not read was cut');
              end();
              return;
            }
            out.write(text);
          };
          const watcher: Watcher = {
            projectId,
            filter: { type, user, session, rejected, leaveOut },
            send: (event, data) => write(`event: ${event}\ndata: ${data}\n\n`),
          };
          out.write('retry: 3000\n\n');
          const stop = hub.watch(watcher, () => write('event: ready\ndata: {}\n\n'));
          const keepalive = setInterval(() => write(': keep-alive\n\n'), KEEPALIVE_MS);
          raw.on('close', end);
          out.on('error', end);
          return reply
            .header('content-type', 'text/event-stream; charset=utf-8')
            .header('cache-control', 'no-store')
            .header('x-accel-buffering', 'no')
            .send(out as never); // a stream, which the schema (for the document) cannot type
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
