import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { scimConnection } from '../access/scim.ts';
import type { TypedScope } from '../api/scope.ts';
import { GROUP_FILTERS } from './filter.ts';
import { groupOut } from './group.ts';
import { listGroups } from './groups-store.ts';
import { createGroup, getGroup, patchGroupOf, removeGroup, replaceGroup } from './groups.ts';
import { LIST_URN, projected, readListQuery } from './list.ts';
import { Id, ListQuery, common, schema, type ScimRouteDeps } from './route-parts.ts';
import { GroupIn, GroupOut, ListOut, PatchIn, ScimErrors } from './schemas.ts';

/** /scim/v2/Groups: thin handlers over groups.ts, each answering a Group (group.ts groupOut) or a list of them. */
export function registerGroupRoutes(scope: TypedScope, deps: ScimRouteDeps, base: string): void {
  const out = (g: Parameters<typeof groupOut>[0]) => groupOut(g, base);
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;

  scope.post(
    '/Groups',
    {
      ...common,
      schema: schema('createScimGroup', 'Provision a group: a new organization with members (RFC 7644 3.3)', {
        body: GroupIn,
        response: { 201: GroupOut, ...ScimErrors },
      }),
    },
    async (request, reply) => {
      const g = out(await createGroup(deps.db, scimConnection(request), request.body));
      return reply
        .code(201)
        .header('location', (g.meta as { location: string }).location)
        .send(g);
    },
  );

  scope.get(
    '/Groups',
    {
      ...common,
      schema: schema('listScimGroups', "The connection's groups, filtered and paged", {
        querystring: ListQuery('displayName eq "Sales"'),
        response: { 200: ListOut(GroupOut), ...ScimErrors },
      }),
    },
    async (request) => {
      const q = readListQuery(request.query as Record<string, unknown>, 1, GROUP_FILTERS);
      const page = await listGroups(deps.db, scimConnection(request).id, q.filter, q.startIndex, q.count);
      return {
        schemas: [LIST_URN],
        totalResults: page.total,
        startIndex: q.startIndex,
        itemsPerPage: page.groups.length,
        Resources: page.groups.map((g) => projected(out(g), q)),
      };
    },
  );

  scope.get(
    '/Groups/:id',
    {
      ...common,
      schema: schema('getScimGroup', 'One of the connection’s groups', {
        params: Id,
        response: { 200: GroupOut, ...ScimErrors },
      }),
    },
    async (request) => {
      const q = readListQuery({ ...(request.query as Record<string, unknown>), filter: undefined }, 1, GROUP_FILTERS);
      return projected(out(await getGroup(deps.db, scimConnection(request), id(request))), q);
    },
  );

  scope.put(
    '/Groups/:id',
    {
      ...common,
      schema: schema('replaceScimGroup', "Replace a group's name and members (RFC 7644 3.5.1)", {
        params: Id,
        body: GroupIn,
        response: { 200: GroupOut, ...ScimErrors },
      }),
    },
    async (request) => out(await replaceGroup(deps.db, scimConnection(request), id(request), request.body)),
  );

  scope.patch(
    '/Groups/:id',
    {
      ...common,
      schema: schema('patchScimGroup', 'Rename a group, add or remove members (RFC 7644 3.5.2)', {
        params: Id,
        body: PatchIn,
        response: { 200: GroupOut, ...ScimErrors },
      }),
    },
    async (request) => out(await patchGroupOf(deps.db, scimConnection(request), id(request), request.body)),
  );

  scope.delete(
    '/Groups/:id',
    {
      ...common,
      schema: schema('deleteScimGroup', 'Deactivate the organization and stop seeing it (RFC 7644 3.6)', {
        params: Id,
        response: {
          204: Type.Null({ description: 'Deactivated; later requests for this id are 404.' }),
          ...ScimErrors,
        },
      }),
    },
    async (request, reply) => {
      await removeGroup(deps.db, scimConnection(request), id(request));
      return reply.code(204).send();
    },
  );
}
