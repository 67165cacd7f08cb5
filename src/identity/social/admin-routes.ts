import { ADMIN } from '../access/rules.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { existingPrincipal } from '../principals/out.ts';
import { listExternalIdentities, removeExternalIdentity } from './account-links.ts';

const ExternalIdentityOut = Type.Object({
  id: Uuid,
  provider: Type.String(),
  subject: Type.String(),
  email: Nullable(Type.String()),
  email_verified: Type.Boolean(),
  last_login_at: Nullable(Timestamp),
  principal_id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** A principal's linked upstream accounts, under the management API (admin guard). */
export async function registerExternalIdentityRoutes(scope: TypedScope, deps: { db: Database }): Promise<void> {
  const tags = ['management'];
  const security = Security;

  scope.get(
    '/principals/:id/external-identities',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listExternalIdentities',
        tags,
        security,
        summary: "A principal's linked social accounts (provider, subject)",
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: pageOf(ExternalIdentityOut), ...Errors },
      },
    },
    async (request) => {
      await existingPrincipal(deps.db, request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listExternalIdentities(deps.db, request.params.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ById)?.[0],
      });
      return toPage(rows, limit, (e) => [e.id]);
    },
  );

  scope.delete(
    '/principals/:id/external-identities/:identityId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'unlinkExternalIdentity',
        tags,
        security,
        summary: 'Unlink a social account: its next sign-in is a first one again',
        params: Type.Object({ id: Uuid, identityId: Uuid }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      if (!(await removeExternalIdentity(deps.db, request.params.id, request.params.identityId)))
        throw new HttpError(404, 'NOT_FOUND', 'no such linked account of this principal');
      return reply.code(204).send(null);
    },
  );
}
