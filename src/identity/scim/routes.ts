import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { SCIM } from '../access/rules.ts';
import { scimConnection } from '../access/scim.ts';
import type { TypedScope } from '../api/scope.ts';
import { SCIM_PREFIX, scimError } from './errors.ts';
import { groupSchema, resourceTypes, serviceProviderConfig, userSchema } from './discovery.ts';
import { LIST_URN, projected, readListQuery } from './list.ts';
import { GROUP_FILTERS, USER_FILTERS } from './filter.ts';
import { AnyObject, GroupIn, GroupOut, ListOut, PatchIn, ScimErrors, UserIn, UserOut } from './schemas.ts';
import { GROUP_URN, USER_URN, userOut } from './user.ts';
import { groupOut } from './group.ts';
import { listGroups } from './groups-store.ts';
import { createGroup, getGroup, patchGroupOf, removeGroup, replaceGroup } from './groups.ts';
import { listUsers } from './users-store.ts';
import { createUser, getUser, patchUser, removeUser, replaceUser, type ScimUserDeps } from './users.ts';

export interface ScimRouteDeps extends ScimUserDeps {
  issuer: string;
}

const SCIM_JSON = 'application/scim+json; charset=utf-8';
const tags = ['scim'];
const security = [{ scimToken: [] }];
const content = ['application/scim+json', 'application/json'];
const Id = Type.Object({ id: Type.String() });

/**
 * SCIM 2.0 (RFC 7643, RFC 7644) under /scim/v2: discovery and Users, for an enterprise directory's provisioning. Every
 * route declares SCIM access (a connection's token). Bodies are read as `application/scim+json` or `application/json`
 * and answered as `application/scim+json`; the route schemas describe them for /openapi.json while the handlers check
 * them by SCIM's rules (schemas.ts says why), so every refusal is in SCIM's error shape.
 */
export async function registerScim(app: App, deps: ScimRouteDeps): Promise<void> {
  const base = `${deps.issuer.replace(/\/$/, '')}${SCIM_PREFIX}`;
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider() as unknown as TypedScope;
      readScimJson(scope);
      // Documentation only (see above): nothing is coerced or dropped, the handlers read what was sent.
      scope.setValidatorCompiler(() => () => true);
      scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
      scope.addHook('onSend', async (_request, reply, payload) => {
        if (String(reply.getHeader('content-type') ?? '').startsWith('application/json')) reply.type(SCIM_JSON);
        return payload;
      });
      scope.setNotFoundHandler((request, reply) => {
        reply.code(404);
        throw scimError(404, undefined, `no SCIM endpoint ${request.method} ${request.url.split('?')[0]}`);
      });
      discoveryRoutes(scope, base);
      userRoutes(scope, deps, base);
      groupRoutes(scope, deps, base);
    },
    { prefix: SCIM_PREFIX },
  );
}

/** Both JSON media types, Fastify's own parser (prototype poisoning refused); malformed JSON is 400 invalidSyntax. */
function readScimJson(scope: TypedScope): void {
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.removeAllContentTypeParsers();
  for (const type of ['application/json', 'application/scim+json'])
    scope.addContentTypeParser(type, { parseAs: 'string' }, (request, body, done) => {
      if ((body as string).length === 0) return done(null, undefined);
      void parseJson(request, body as string, (err, value) => {
        if (err) done(scimError(400, 'invalidSyntax', `the body is not JSON: ${err.message}`), undefined);
        else done(null, value);
      });
    });
}

function discoveryRoutes(scope: TypedScope, base: string): void {
  const doc = (path: string, operationId: string, summary: string, answer: () => unknown) =>
    scope.get(
      path,
      {
        config: { access: SCIM },
        schema: {
          operationId,
          tags,
          security,
          summary,
          produces: content,
          response: { 200: AnyObject, ...ScimErrors },
        },
      },
      async () => answer(),
    );
  doc('/ServiceProviderConfig', 'getScimServiceProviderConfig', 'What this SCIM service supports (RFC 7643 5)', () =>
    serviceProviderConfig(base),
  );
  const list = (resources: unknown[]) => ({
    schemas: [LIST_URN],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  });
  doc('/ResourceTypes', 'listScimResourceTypes', 'The resource types served: User (RFC 7643 6)', () =>
    list(resourceTypes(base)),
  );
  doc('/Schemas', 'listScimSchemas', 'The User and Group schemas as kept here (RFC 7643 7)', () =>
    list([userSchema(base), groupSchema(base)]),
  );
  const one = (path: string, operationId: string, summary: string, find: (id: string) => unknown) =>
    scope.get(
      path,
      {
        config: { access: SCIM },
        schema: {
          operationId,
          tags,
          security,
          summary,
          params: Id,
          produces: content,
          response: { 200: AnyObject, ...ScimErrors },
        },
      },
      async (request) => {
        const { id } = request.params as { id: string };
        const found = find(id);
        if (!found) throw scimError(404, undefined, `no ${path.split('/')[1]} ${id}`);
        return found;
      },
    );
  one('/ResourceTypes/:id', 'getScimResourceType', 'One resource type', (id) =>
    resourceTypes(base).find((r) => r.id === id),
  );
  one('/Schemas/:id', 'getScimSchema', 'One schema', (id) =>
    id === USER_URN ? userSchema(base) : id === GROUP_URN ? groupSchema(base) : undefined,
  );
}

const common = { config: { access: SCIM } } as const;
const schema = (operationId: string, summary: string, more: Record<string, unknown>) => ({
  operationId,
  tags,
  security,
  summary,
  consumes: content,
  produces: content,
  ...more,
});
const ListQuery = (example: string) =>
  Type.Object({
    filter: Type.Optional(Type.String({ description: `e.g. ${example} (docs/identity.md lists what)` })),
    startIndex: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    count: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 100 })),
    attributes: Type.Optional(Type.String()),
    excludedAttributes: Type.Optional(Type.String()),
  });

function userRoutes(scope: TypedScope, deps: ScimRouteDeps, base: string): void {
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
        querystring: Type.Object({
          filter: Type.Optional(
            Type.String({ description: 'e.g. userName eq "ada@example.com" (docs/identity.md lists what)' }),
          ),
          startIndex: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
          count: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 100 })),
          attributes: Type.Optional(Type.String()),
          excludedAttributes: Type.Optional(Type.String()),
        }),
        response: { 200: ListOut(UserOut), ...ScimErrors },
      }),
    },
    async (request) => {
      const q = readListQuery(request.query as Record<string, unknown>, 1, USER_FILTERS);
      const page = await listUsers(deps.db, scimConnection(request).id, q.filter, q.startIndex, q.count);
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

function groupRoutes(scope: TypedScope, deps: ScimRouteDeps, base: string): void {
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
