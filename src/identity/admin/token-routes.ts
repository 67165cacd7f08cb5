import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { ByTime, Errors, Nullable, Page, Security as security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { existingPrincipal } from '../principals/out.ts';
import { listTokens, revokeToken } from '../oidc/token-admin.ts';

const tags = ['management'];
type Deps = { db: Database };

const TokenOut = Type.Object({
  id: Uuid,
  kind: Type.String(),
  client_id: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Type.String(),
  expires_at: Nullable(Type.String()),
  client_ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  last_used_at: Nullable(Type.String()),
});

/** A principal's live tokens under /api/v1/principals/:id/tokens: list them, revoke one (ADMIN access). */
export function registerTokenRoutes(scope: TypedScope, deps: Deps): void {
  listPrincipalTokensRoute(scope, deps);
  revokePrincipalTokenRoute(scope, deps);
}

function listPrincipalTokensRoute(scope: TypedScope, deps: Deps): void {
  scope.get(
    '/principals/:id/tokens',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listPrincipalTokens',
        tags,
        security,
        summary: "A principal's live tokens, newest first",
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: pageOf(TokenOut), ...Errors },
      },
    },
    async (request) => {
      await existingPrincipal(deps.db, request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listTokens(deps.db, request.params.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ByTime),
      });
      return toPage(
        rows,
        limit,
        (t) => t.position,
        ({ position: _, ...t }) => t,
      );
    },
  );
}

function revokePrincipalTokenRoute(scope: TypedScope, deps: Deps): void {
  scope.delete(
    '/principals/:id/tokens/:tokenId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokePrincipalToken',
        tags,
        security,
        summary: 'Revoke one token (a refresh token takes its family)',
        params: Type.Object({ id: Uuid, tokenId: Uuid }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      if (!(await revokeToken(deps.db, request.params.id, request.params.tokenId)))
        throw new HttpError(404, 'NOT_FOUND', 'no live token with this id for this principal');
      return reply.code(204).send(null);
    },
  );
}
