import { ADMIN } from '../access/rules.ts';
import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, JsonObject, Nullable, Page, Scopes, Security, Uuid } from '../api/schemas.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { findPrincipal, listPrincipals, type PrincipalView } from '../principals/view.ts';
import { PrincipalOut, PrincipalType, principalOut } from '../principals/out.ts';
import type { TypedScope } from '../api/scope.ts';
import { setPrincipalActive, updatePrincipal } from '../principals/store.ts';
import { checkScopes, createPrincipal, NewPrincipal, newPrincipalProblem } from './new-principal.ts';

export interface PrincipalRouteDeps {
  db: Database;
  accounts: PrincipalDirectory;
  clients: ClientStore;
  scopes: string[];
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

const tags = ['management'];
const security = Security;

function found(p: PrincipalView | undefined, id: string): PrincipalView {
  if (!p) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
  return p;
}

/** Principals of every type under /api/v1/principals (each route declares ADMIN access). */
export async function registerPrincipalRoutes(scope: TypedScope, deps: PrincipalRouteDeps): Promise<void> {
  createPrincipalRoute(scope, deps);
  listPrincipalsRoute(scope, deps);
  getPrincipalRoute(scope, deps);
  updatePrincipalRoute(scope, deps);
  activationRoutes(scope, deps);
}

function createPrincipalRoute(scope: TypedScope, deps: PrincipalRouteDeps): void {
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
      const created = await createPrincipal(deps, request.body);
      return reply.code(201).send(principalOut(created));
    },
  );
}

function listPrincipalsRoute(scope: TypedScope, deps: PrincipalRouteDeps): void {
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
}

function getPrincipalRoute(scope: TypedScope, deps: PrincipalRouteDeps): void {
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
}

function updatePrincipalRoute(scope: TypedScope, deps: PrincipalRouteDeps): void {
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
      checkScopes(deps.scopes, b.allowed_scopes);
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
}

function activationRoutes(scope: TypedScope, deps: PrincipalRouteDeps): void {
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
        const p = found(await setPrincipalActive(deps.db, deps, request.params.id, active), request.params.id);
        return principalOut(p);
      },
    );
  }
}
