import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { Errors, Nullable, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope as AdminScope } from '../api/scope.ts';
import { listAdminLog } from './store.ts';

const Time = Type.String({ format: 'date-time' });
const Entry = Type.Object({
  id: Type.String({ description: 'The entry’s number: later entries have larger ones.' }),
  at: Time,
  actor: Type.Object({
    kind: Type.Union(
      [
        Type.Literal('person'),
        Type.Literal('admin-token'),
        Type.Literal('platform'),
        Type.Literal('command'),
        Type.Literal('anonymous'),
        Type.Literal('scim'),
      ],
      {
        description:
          "person: an access token's or a signed-in browser's person; admin-token: IDENTITY_ADMIN_TOKEN; platform: the first run; command: a `platform identity` command run on the server; anonymous: nobody known (a refused sign-in); scim: a SCIM connection (id and name its own).",
      },
    ),
    id: Nullable(Uuid),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
  }),
  action: Type.String({ description: '`<thing>.<verb>`, as `application.create` or `organization.member.update`.' }),
  event: Nullable(
    Type.String({ description: 'The webhook event this entry is (`GET /api/v1/webhook-events`), if any.' }),
  ),
  client_ip: Nullable(Type.String({ description: 'The address a sign-in came from.' })),
  target: Type.Object({
    type: Type.String(),
    id: Type.String(),
    name: Nullable(
      Type.String({ description: "The target's name now: a principal's, organization's or application's." }),
    ),
  }),
  before: Type.Unknown({ description: 'The value before, where the change records it (console rights); else null.' }),
  after: Type.Unknown({ description: 'What the change set (the request, secrets redacted), or the value after.' }),
});
const Query = Type.Object(
  {
    ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 320,
        description:
          '`admin-token`, `platform`, `command`, `scim`, a principal or SCIM connection id, or part of a person’s name or email (any case)',
      }),
    ),
    action: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[a-z0-9_.-]+$',
        description: 'An action, or its beginning up to a dot (`organization` finds every organization.* action)',
      }),
    ),
    event: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[a-z0-9_.]+$',
        description: 'Entries that are this event',
      }),
    ),
    target_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9_-]+$' })),
    target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Text in what the change recorded' })),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Changes at or after this time (ISO 8601 with a zone)' }),
    ),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Changes before this time (ISO 8601 with a zone)' }),
    ),
  },
  { additionalProperties: false },
);
const Position = Type.Tuple([Type.String({ pattern: '^[1-9][0-9]{0,18}$' })]);

/** `GET /api/v1/admin-log` (ADMIN): every administrative change, newest first, searchable by who, what, on what and when. */
export async function registerAdminLogRoutes(scope: AdminScope, deps: { db: Database }): Promise<void> {
  scope.get(
    '/admin-log',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listAdminChanges',
        tags: ['management'],
        security: Security,
        summary:
          'Every administrative change (management API and marketplace changes, console rights) and every sign-in, newest first: filters by actor, action, event, target, text and time',
        querystring: Query,
        response: { 200: pageOf(Entry), ...Errors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.since && q.until && Date.parse(q.since) >= Date.parse(q.until))
        throw new HttpError(400, 'VALIDATION_ERROR', 'since must be earlier than until');
      const rows = await listAdminLog(deps.db, {
        actor: q.actor,
        action: q.action,
        event: q.event,
        targetType: q.target_type,
        targetId: q.target_id,
        text: q.q,
        since: q.since,
        until: q.until,
        before: decodeCursor(q.cursor, Position)?.[0],
        limit: q.limit + 1,
      });
      return toPage(rows, q.limit, (e) => [e.id]);
    },
  );
}
