import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { ById, Errors, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope as AdminScope } from '../api/scope.ts';
import { addMemberByIdentifier, listMemberPeople } from './people-store.ts';
import { findOrganization } from './store.ts';

const Time = Type.String({ format: 'date-time' });
const Role = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' });
const MemberPersonOut = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  principal_id: Uuid,
  role: Type.String(),
  permissions: Nullable(Type.Array(Type.String())),
  active: Type.Boolean(),
  created_at: Time,
  updated_at: Time,
  principal: Type.Object({
    id: Uuid,
    type: Type.String(),
    identifier: Type.String(),
    display_name: Type.String(),
    email: Nullable(Type.String()),
    active: Type.Boolean(),
  }),
});

/**
 * An organization's people: its memberships with who each member is (`GET`), and adding someone by the email or
 * identifier an admin knows them by (`POST`), which the console uses instead of the principal ids of `/members`.
 */
export async function registerOrganizationPeopleRoutes(scope: AdminScope, deps: { db: Database }): Promise<void> {
  const tags = ['management'];
  const security = Security;
  const Params = Type.Object({ id: Uuid });
  const orgOf = async (id: string) => {
    const o = await findOrganization(deps.db, id);
    if (!o) throw new HttpError(404, 'NOT_FOUND', `no organization ${id}`);
    return o;
  };

  scope.get(
    '/organizations/:id/people',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listMemberPeople',
        tags,
        security,
        summary: "An organization's memberships with each member's name, identifier and email, in principal id order",
        params: Params,
        querystring: Type.Object(
          { ...Page.properties, active: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: pageOf(MemberPersonOut), ...Errors },
      },
    },
    async (request) => {
      await orgOf(request.params.id);
      const q = request.query;
      const rows = await listMemberPeople(deps.db, request.params.id, {
        active: q.active,
        limit: q.limit + 1,
        after: decodeCursor(q.cursor, ById)?.[0],
      });
      return toPage(rows, q.limit, (m) => [m.principal_id]);
    },
  );

  scope.post(
    '/organizations/:id/people',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'addMemberByIdentifier',
        tags,
        security,
        summary:
          'Add a member by email (a person) or identifier (any principal): 201 for a new membership, 200 when a removed member rejoins with the role given; 409 for an active member',
        params: Params,
        body: Type.Object(
          {
            identifier: Type.String({
              minLength: 1,
              maxLength: 320,
              description: "A person's email or a principal's identifier.",
            }),
            role: Type.Optional(Role),
          },
          { additionalProperties: false },
        ),
        response: { 200: MemberPersonOut, 201: MemberPersonOut, ...Errors },
      },
    },
    async (request, reply) => {
      const org = await orgOf(request.params.id);
      if (!org.active) throw new HttpError(409, 'CONFLICT', 'the organization is deactivated');
      const identifier = request.body.identifier.trim();
      if (!identifier) throw new HttpError(400, 'VALIDATION_ERROR', 'identifier must not be blank');
      const { member, rejoined } = await addMemberByIdentifier(
        deps.db,
        org.id,
        identifier,
        request.body.role ?? 'member',
      );
      return reply.code(rejoined ? 200 : 201).send(member);
    },
  );
}
