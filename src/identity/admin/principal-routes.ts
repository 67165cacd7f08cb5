import { ADMIN } from '../access/rules.ts';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, JsonObject, Nullable, Page, Scopes, Security, Uuid } from '../api/schemas.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { findPrincipal, listPrincipals, type PrincipalView } from '../principals/view.ts';
import { PrincipalOut, PrincipalType, principalOut } from '../principals/out.ts';
import type { TypedScope } from '../api/scope.ts';
import { createAgent, createHuman, createService, setPrincipalActive, updatePrincipal } from '../principals/store.ts';

export interface PrincipalRouteDeps {
  db: Database;
  accounts: PrincipalDirectory;
  clients: ClientStore;
  scopes: string[];
}

const Common = {
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  allowed_scopes: Type.Optional(Scopes),
  capabilities: Type.Optional(JsonObject),
  metadata: Type.Optional(JsonObject),
  organization_id: Type.Optional(Uuid),
};
const NewHuman = Type.Object(
  {
    type: Type.Literal('human'),
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.Optional(Type.String({ minLength: 12, maxLength: 1024 })),
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    given_name: Type.Optional(Type.String({ maxLength: 100 })),
    family_name: Type.Optional(Type.String({ maxLength: 100 })),
    is_platform_admin: Type.Optional(Type.Boolean()),
    email_verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'NewHuman' },
);
const NewService = Type.Object(
  {
    type: Type.Literal('service'),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Unique; becomes the identifier.' }),
    service_type: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    allowed_ips: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
    ...Common,
  },
  { additionalProperties: false, title: 'NewService' },
);
const NewAgent = Type.Object(
  {
    type: Type.Literal('agent'),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Unique; becomes the identifier.' }),
    model_id: Type.String({ minLength: 1, maxLength: 200 }),
    version: Type.Optional(Type.String({ maxLength: 100 })),
    capability_constraints: Type.Optional(JsonObject),
    resource_constraints: Type.Optional(JsonObject),
    max_token_lifetime: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    session_id: Type.Optional(Type.String({ maxLength: 200 })),
    requires_confirmation: Type.Optional(Type.Boolean()),
    delegating_principal_id: Type.Optional(Uuid),
    dpop_required: Type.Optional(Type.Boolean({ description: 'Require DPoP-bound delegated tokens (default false).' })),
    ...Common,
  },
  { additionalProperties: false, title: 'NewAgent' },
);
const NewPrincipal = Type.Union([NewHuman, NewService, NewAgent], {
  description: 'Applications are registered through /applications, which creates their principal.',
});
const NEW_PRINCIPAL_TYPES = { human: NewHuman, service: NewService, agent: NewAgent } as const;

/**
 * What is wrong with a new principal's body, told against the one kind its `type` names. Validated as the union alone,
 * Ajv reported every kind's complaint at once ("body must have required property 'name', body must have required
 * property 'name', body must match a schema in anyOf" for a human with a bad field).
 */
export function newPrincipalProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be an object';
  const type = (body as { type?: unknown }).type;
  const schema =
    typeof type === 'string' && Object.hasOwn(NEW_PRINCIPAL_TYPES, type)
      ? NEW_PRINCIPAL_TYPES[type as keyof typeof NEW_PRINCIPAL_TYPES]
      : undefined;
  if (!schema)
    return 'body /type must be one of human, service, agent (applications are registered through POST /api/v1/applications)';
  if (Value.Check(schema, body)) return undefined;
  return [...Value.Errors(schema, body)]
    .filter((e) => e.keyword !== 'boolean')
    .map((e) => {
      const where = `body${e.instancePath ? ` ${e.instancePath}` : ''}`;
      if (e.keyword === 'additionalProperties') {
        const names = (e.params as { additionalProperties?: string[] }).additionalProperties ?? [];
        return `${where} has unknown ${names.length === 1 ? 'property' : 'properties'} ${names.map((n) => `'${n}'`).join(', ')} (a ${type} takes ${Object.keys(schema.properties).join(', ')})`;
      }
      return `${where} ${e.message}`;
    })
    .join(', ');
}

const PrincipalChanges = Type.Object(
  {
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    allowed_scopes: Type.Optional(Scopes),
    capabilities: Type.Optional(JsonObject),
    metadata: Type.Optional(Nullable(JsonObject)),
    organization_id: Type.Optional(Nullable(Uuid)),
  },
  { additionalProperties: false, minProperties: 1 },
);

const ListQuery = Type.Object(
  {
    ...Page.properties,
    type: Type.Optional(PrincipalType),
    organization_id: Type.Optional(Uuid),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Principals of every type under /api/v1/principals (each route declares ADMIN access). */
export async function registerPrincipalRoutes(scope: TypedScope, deps: PrincipalRouteDeps): Promise<void> {
  const tags = ['management'];
  const security = Security;
  const checkScopes = (scopes: string[] | undefined) => {
    const unknown = (scopes ?? []).filter((s) => !deps.scopes.includes(s));
    if (unknown.length)
      throw new HttpError(
        400,
        'VALIDATION_ERROR',
        `unknown scope ${unknown.join(', ')}; known: ${deps.scopes.join(', ')}`,
      );
  };
  const found = (p: PrincipalView | undefined, id: string): PrincipalView => {
    if (!p) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
    return p;
  };

  scope.post(
    '/principals',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'createPrincipal',
        tags,
        security,
        summary: 'Create a human, service or agent principal',
        body: NewPrincipal,
        response: { 201: PrincipalOut, ...Errors },
      },
      // Checked against the kind `type` names before the union is, so a 400 names only that kind's problems.
      preValidation: async (request) => {
        const problem = newPrincipalProblem(request.body);
        if (problem) throw new HttpError(400, 'VALIDATION_ERROR', problem);
      },
    },
    async (request, reply) => {
      const b = request.body;
      let created: PrincipalView;
      if (b.type === 'human') {
        created = await createHuman(deps.db, {
          email: b.email,
          password: b.password,
          displayName: b.display_name,
          givenName: b.given_name,
          familyName: b.family_name,
          isPlatformAdmin: b.is_platform_admin ?? false,
          emailVerified: b.email_verified ?? false,
        });
      } else {
        checkScopes(b.allowed_scopes);
        const common = {
          name: b.name,
          displayName: b.display_name,
          allowedScopes: b.allowed_scopes,
          capabilities: b.capabilities,
          metadata: b.metadata,
          organizationId: b.organization_id,
        };
        created =
          b.type === 'service'
            ? await createService(deps.db, {
                ...common,
                serviceType: b.service_type,
                description: b.description,
                allowedIps: b.allowed_ips,
              })
            : await createAgent(deps.db, {
                ...common,
                modelId: b.model_id,
                version: b.version,
                capabilityConstraints: b.capability_constraints,
                resourceConstraints: b.resource_constraints,
                maxTokenLifetime: b.max_token_lifetime,
                sessionId: b.session_id,
                requiresConfirmation: b.requires_confirmation,
                delegatingPrincipalId: b.delegating_principal_id,
                dpopRequired: b.dpop_required,
              });
      }
      return reply.code(201).send(principalOut(created));
    },
  );

  scope.get(
    '/principals',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listPrincipals',
        tags,
        security,
        summary: 'List principals, filtered by type, organization (home or active membership) and active',
        querystring: ListQuery,
        response: { 200: pageOf(PrincipalOut), ...Errors },
      },
    },
    async (request) => {
      const q = request.query;
      const rows = await listPrincipals(deps.db, {
        type: q.type,
        organizationId: q.organization_id,
        active: q.active,
        limit: q.limit + 1,
        after: decodeCursor(q.cursor, ById)?.[0],
      });
      return toPage(rows, q.limit, (p) => [p.id], principalOut);
    },
  );

  scope.get(
    '/principals/:id',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getPrincipal',
        tags,
        security,
        summary: 'One principal',
        params: Type.Object({ id: Uuid }),
        response: { 200: PrincipalOut, ...Errors },
      },
    },
    async (request) => principalOut(found(await findPrincipal(deps.db, request.params.id), request.params.id)),
  );

  scope.patch(
    '/principals/:id',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'updatePrincipal',
        tags,
        security,
        summary: "Change a principal's display name, scopes, capabilities, metadata or home organization",
        params: Type.Object({ id: Uuid }),
        body: PrincipalChanges,
        response: { 200: PrincipalOut, ...Errors },
      },
    },
    async (request) => {
      const b = request.body;
      checkScopes(b.allowed_scopes);
      const updated = found(
        await updatePrincipal(deps.db, request.params.id, {
          displayName: b.display_name,
          allowedScopes: b.allowed_scopes,
          capabilities: b.capabilities,
          metadata: b.metadata,
          organizationId: b.organization_id,
        }),
        request.params.id,
      );
      deps.accounts.invalidate(updated.id);
      return principalOut(updated);
    },
  );

  for (const [action, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    scope.post(
      `/principals/:id/${action}`,
      {
        config: { access: ADMIN },
        schema: {
          operationId: `${action}Principal`,
          tags,
          security,
          summary: active
            ? 'Reactivate a principal'
            : 'Deactivate a principal: its tokens stop working at once, its browser sessions end, it cannot sign in',
          params: Type.Object({ id: Uuid }),
          response: { 200: PrincipalOut, ...Errors },
        },
      },
      async (request) => {
        const p = found(await setPrincipalActive(deps.db, request.params.id, active), request.params.id);
        deps.accounts.invalidate(p.id);
        if (p.application) deps.clients.invalidate(p.application.clientId);
        return principalOut(p);
      },
    );
  }
}
