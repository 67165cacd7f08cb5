import type { App } from '../../kit/app.ts';
import { SCIM } from '../access/rules.ts';
import type { TypedScope } from '../api/scope.ts';
import { SCIM_PREFIX, scimError } from './errors.ts';
import { groupSchema, resourceTypes, serviceProviderConfig, userSchema } from './discovery.ts';
import { registerGroupRoutes } from './group-routes.ts';
import { LIST_URN } from './list.ts';
import { Id, content, security, tags, type ScimRouteDeps } from './route-parts.ts';
import { AnyObject, ScimErrors } from './schemas.ts';
import { GROUP_URN, USER_URN } from './user.ts';
import { registerUserRoutes } from './user-routes.ts';

export type { ScimRouteDeps } from './route-parts.ts';

const SCIM_JSON = 'application/scim+json; charset=utf-8';

/**
 * SCIM 2.0 (RFC 7643, RFC 7644) under /scim/v2: discovery, Users and Groups, for an enterprise directory's provisioning. Every
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
      registerUserRoutes(scope, deps, base);
      registerGroupRoutes(scope, deps, base);
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
