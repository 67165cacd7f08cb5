import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { ByTime, Errors, Nullable, Page, Security as security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { existingPrincipal } from '../principals/out.ts';
import { listConsents, revokeConsent } from './store.ts';

const tags = ['management'];
type Deps = { db: Database };

const ConsentOut = Type.Object({
  id: Uuid,
  app_id: Uuid,
  client_id: Type.String(),
  app_name: Type.String(),
  scopes: Type.Array(Type.String()),
  granted_at: Type.String(),
  last_used_at: Nullable(Type.String()),
  revoked: Type.Boolean(),
  revoked_at: Nullable(Type.String()),
  revoked_reason: Nullable(Type.String()),
});

/** A principal's consents under /api/v1/principals/:id/consents: list them, revoke one (ADMIN access). */
export function registerConsentAdminRoutes(scope: TypedScope, deps: Deps): void {
  listPrincipalConsentsRoute(scope, deps);
  revokePrincipalConsentRoute(scope, deps);
}

function listPrincipalConsentsRoute(scope: TypedScope, deps: Deps): void {
  scope.get(
    '/principals/:id/consents',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listPrincipalConsents',
        tags,
        security,
        summary: "A principal's consents, oldest first",
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: pageOf(ConsentOut), ...Errors },
      },
    },
    async (request) => {
      await existingPrincipal(deps.db, request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listConsents(deps.db, request.params.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ByTime),
      });
      return toPage(
        rows,
        limit,
        (c) => c.position,
        ({ position: _, ...c }) => c,
      );
    },
  );
}

function revokePrincipalConsentRoute(scope: TypedScope, deps: Deps): void {
  scope.delete(
    '/principals/:id/consents/:appId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokePrincipalConsent',
        tags,
        security,
        summary: "Revoke a principal's consent to an app, and that app's tokens for the principal",
        params: Type.Object({ id: Uuid, appId: Uuid }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      if (!(await revokeConsent(deps.db, request.params.id, request.params.appId, 'admin_revoked')))
        throw new HttpError(404, 'NOT_FOUND', 'no live consent of this principal to this app');
      return reply.code(204).send(null);
    },
  );
}
