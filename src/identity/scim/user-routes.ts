import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { scimConnection } from '../access/scim.ts';
import type { TypedScope } from '../api/scope.ts';
import { USER_FILTERS } from './filter.ts';
import { LIST_URN, projected, readListQuery } from './list.ts';
import { Id, ListQuery, common, schema, type ScimRouteDeps } from './route-parts.ts';
import { ListOut, PatchIn, ScimErrors, UserIn, UserOut } from './schemas.ts';
import { userOut } from './user.ts';
import { createUser, getUser, patchUser, removeUser, replaceUser, searchUsers } from './users.ts';

/** /scim/v2/Users: thin handlers over users.ts, each answering a User (user.ts userOut) or a list of them. */
export function registerUserRoutes(scope: TypedScope, deps: ScimRouteDeps, base: string): void {
  const out = (u: Parameters<typeof userOut>[0]) => userOut(u, base);

  scope.post(
    '/Users',
    {
      ...common,
      schema: schema('createScimUser', 'Provision a person (RFC 7644 3.3)', {
        body: UserIn,
        response: { 201: UserOut, ...ScimErrors },
      }),
    },
    async (request, reply) => {
      const u = out(await createUser(deps, scimConnection(request), request.body));
      return reply
        .code(201)
        .header('location', (u.meta as { location: string }).location)
        .send(u);
    },
  );

  scope.get(
    '/Users',
    {
      ...common,
      schema: schema('listScimUsers', "The connection's people, filtered and paged (RFC 7644 3.4.2)", {
        querystring: ListQuery('userName eq "ada@example.com"'),
        response: { 200: ListOut(UserOut), ...ScimErrors },
      }),
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const q = readListQuery(query, 1, USER_FILTERS);
      const text = Array.isArray(query.filter) ? query.filter[0] : query.filter;
      const page = await searchUsers(deps, scimConnection(request), q, typeof text === 'string' ? text : undefined);
      return {
        schemas: [LIST_URN],
        totalResults: page.total,
        startIndex: q.startIndex,
        itemsPerPage: page.users.length,
        Resources: page.users.map((u) => projected(out(u), q)),
      };
    },
  );

  scope.get(
    '/Users/:id',
    {
      ...common,
      schema: schema('getScimUser', 'One of the connection’s people', {
        params: Id,
        response: { 200: UserOut, ...ScimErrors },
      }),
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const q = readListQuery({ ...(request.query as Record<string, unknown>), filter: undefined }, 1, USER_FILTERS);
      return projected(out(await getUser(deps, scimConnection(request), id)), q);
    },
  );

  scope.put(
    '/Users/:id',
    {
      ...common,
      schema: schema('replaceScimUser', 'Replace a person’s attributes (RFC 7644 3.5.1); `active` left out is kept', {
        params: Id,
        body: UserIn,
        response: { 200: UserOut, ...ScimErrors },
      }),
    },
    async (request) => {
      const { id } = request.params as { id: string };
      return out(await replaceUser(deps, scimConnection(request), id, request.body));
    },
  );

  scope.patch(
    '/Users/:id',
    {
      ...common,
      schema: schema(
        'patchScimUser',
        'Change a person by PatchOp operations (RFC 7644 3.5.2); active false deactivates',
        {
          params: Id,
          body: PatchIn,
          response: { 200: UserOut, ...ScimErrors },
        },
      ),
    },
    async (request) => {
      const { id } = request.params as { id: string };
      return out(await patchUser(deps, scimConnection(request), id, request.body));
    },
  );

  scope.delete(
    '/Users/:id',
    {
      ...common,
      schema: schema('deleteScimUser', 'Deactivate a person and stop seeing them (RFC 7644 3.6)', {
        params: Id,
        response: {
          204: Type.Null({ description: 'Deactivated; later requests for this id are 404.' }),
          ...ScimErrors,
        },
      }),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { id } = request.params as { id: string };
      await removeUser(deps, scimConnection(request), id);
      return reply.code(204).send();
    },
  );
}
