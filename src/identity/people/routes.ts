import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { ByTime, Errors, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import { actorOf } from '../console/admin-changes.ts';
import { PrincipalOut, principalOut } from '../principals/out.ts';
import type { TypedScope as AdminScope } from '../api/scope.ts';
import { findPrincipal } from '../principals/view.ts';
import { listMembershipsOf } from './memberships.ts';
import { searchPeople } from './search.ts';
import { resetPersonSecondFactors } from './second-factors.ts';
import { endSession, listSessions, signOutEverywhere } from './sessions.ts';

const PeopleQuery = Type.Object(
  {
    ...pageQuery({ defaultLimit: 25, maxLimit: 100 }),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Part of a name or an email, in any case.' }),
    ),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const ByName = Type.Tuple([Type.String({ maxLength: 1000 }), Uuid]);
const SessionOut = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  expires_at: Timestamp,
  client_ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  provider: Nullable(Type.String({ description: 'The social provider it was signed in with, if any.' })),
  second_factor: Type.Boolean({ description: 'Its sign-in passed a second step (or was a passkey sign-in).' }),
});
const MembershipOut = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  organization_name: Type.String(),
  organization_slug: Type.String(),
  organization_active: Type.Boolean(),
  role: Type.String(),
  permissions: Nullable(Type.Array(Type.String())),
  active: Type.Boolean(),
  created_at: Timestamp,
});
const Params = Type.Object({ id: Uuid });

/**
 * What the console's People screens need beyond the principals API: a search of people, a person's sessions (list,
 * end one, sign out everywhere), their second factors reset, and their organization memberships. Each change is
 * recorded in admin_changes; each route declares ADMIN access.
 */
export async function registerPeopleRoutes(scope: AdminScope, deps: { db: Database }): Promise<void> {
  const tags = ['management'];
  const security = Security;
  const exists = async (id: string) => {
    if (!(await findPrincipal(deps.db, id))) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
  };

  scope.get(
    '/people',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'searchPeople',
        tags,
        security,
        summary: 'People (human principals) in name order, or those whose name or email contains `q`',
        querystring: PeopleQuery,
        response: { 200: pageOf(PrincipalOut), ...Errors },
      },
    },
    async (request) => {
      const { limit, cursor, q, active } = request.query;
      const rows = await searchPeople(deps.db, { q, active, limit: limit + 1, after: decodeCursor(cursor, ByName) });
      return toPage(rows, limit, (p) => p.position, principalOut);
    },
  );

  scope.get(
    '/principals/:id/sessions',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listPrincipalSessions',
        tags,
        security,
        summary: "A person's live browser sessions at identity, newest first",
        params: Params,
        querystring: Page,
        response: { 200: pageOf(SessionOut), ...Errors },
      },
    },
    async (request) => {
      await exists(request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listSessions(deps.db, request.params.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ByTime),
      });
      return toPage(
        rows,
        limit,
        (s) => s.position,
        ({ position: _, ...s }) => s,
      );
    },
  );

  scope.delete(
    '/principals/:id/sessions/:sessionId',
    {
      config: { access: ADMIN, recordsOwnChange: true },
      schema: {
        operationId: 'endPrincipalSession',
        tags,
        security,
        summary: "End one of a person's browser sessions (tokens apps hold stay); recorded",
        params: Type.Object({ id: Uuid, sessionId: Uuid }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      if (!(await endSession(deps.db, request.params.id, request.params.sessionId, actorOf(request))))
        throw new HttpError(404, 'NOT_FOUND', 'no live session with this id for this principal');
      return reply.code(204).send(null);
    },
  );

  scope.delete(
    '/principals/:id/sessions',
    {
      config: { access: ADMIN, recordsOwnChange: true },
      schema: {
        operationId: 'signOutPrincipalEverywhere',
        tags,
        security,
        summary:
          'Sign a person out everywhere: every browser session ends and every live token apps hold for them is revoked; recorded',
        params: Params,
        response: {
          200: Type.Object({ sessions_ended: Type.Integer(), tokens_revoked: Type.Integer() }),
          ...Errors,
        },
      },
    },
    async (request) => {
      await exists(request.params.id);
      const done = await signOutEverywhere(deps.db, request.params.id, actorOf(request));
      return { sessions_ended: done.sessions, tokens_revoked: done.tokens };
    },
  );

  scope.post(
    '/principals/:id/second-factors/reset',
    {
      config: { access: ADMIN, recordsOwnChange: true },
      schema: {
        operationId: 'resetSecondFactors',
        tags,
        security,
        summary:
          "Reset a person's second factors: their authenticator app (with its recovery codes) and passkeys are revoked; recorded",
        description:
          'For someone locked out. The revoked credentials stay on record with reason admin_reset; the person signs in with their first factor and may enrol again. 409 for a principal that is not a person.',
        params: Params,
        response: {
          200: Type.Object({ totp_revoked: Type.Integer(), passkeys_revoked: Type.Integer() }),
          ...Errors,
        },
      },
    },
    async (request) => {
      const done = await resetPersonSecondFactors(deps.db, request.params.id, actorOf(request));
      return { totp_revoked: done.totp, passkeys_revoked: done.passkeys };
    },
  );

  scope.get(
    '/principals/:id/memberships',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listPrincipalMemberships',
        tags,
        security,
        summary: "A principal's organization memberships with each organization's name, oldest first",
        params: Params,
        querystring: Page,
        response: { 200: pageOf(MembershipOut), ...Errors },
      },
    },
    async (request) => {
      await exists(request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listMembershipsOf(deps.db, request.params.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ByTime),
      });
      return toPage(
        rows,
        limit,
        (m) => m.position,
        ({ position: _, ...m }) => m,
      );
    },
  );
}
