import { ADMIN } from '../access/rules.ts';
import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { findPrincipal } from '../principals/view.ts';

const Time = Type.String({ format: 'date-time' });
const ExternalIdentityOut = Type.Object({
  id: Uuid,
  provider: Type.String(),
  subject: Type.String(),
  email: Nullable(Type.String()),
  email_verified: Type.Boolean(),
  last_login_at: Nullable(Time),
  principal_id: Uuid,
  created_at: Time,
  updated_at: Time,
});
type ExternalIdentity = {
  id: string;
  provider: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
  last_login_at: string | null;
  principal_id: string;
  created_at: string;
  updated_at: string;
};
const COLUMNS = `id, provider, subject, email, email_verified, ${isoUtc('last_login_at')} AS last_login_at, principal_id, ${isoUtc('created_at')} AS created_at, ${isoUtc('updated_at')} AS updated_at`;

/** A principal's linked upstream accounts, under the management API (admin guard). */
export async function registerExternalIdentityRoutes(scope: TypedScope, deps: { db: Database }): Promise<void> {
  const tags = ['management'];
  const security = Security;
  const principalOf = async (id: string) => {
    if (!(await findPrincipal(deps.db, id))) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
  };

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
      await principalOf(request.params.id);
      const { limit, cursor } = request.query;
      const r = await deps.db.query<ExternalIdentity>(
        `SELECT ${COLUMNS} FROM external_identities WHERE principal_id = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`,
        [request.params.id, decodeCursor(cursor, ById)?.[0] ?? null, limit + 1],
      );
      return toPage(r.rows, limit, (e) => [e.id]);
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
      const r = await deps.db.query('DELETE FROM external_identities WHERE id = $1 AND principal_id = $2', [
        request.params.identityId,
        request.params.id,
      ]);
      if (r.rowCount === 0) throw new HttpError(404, 'NOT_FOUND', 'no such linked account of this principal');
      return reply.code(204).send(null);
    },
  );
}
