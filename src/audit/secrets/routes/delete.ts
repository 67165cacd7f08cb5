import { Type } from 'typebox';
import type { App } from '../../../kit/app.ts';
import { HttpError, codeForStatus } from '../../../kit/errors.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { SecretParams, secretErrors } from '../schemas.ts';
import { deleteSecret } from '../store.ts';
import type { SecretDeps } from '../routes.ts';

/** `DELETE /api/v1/secrets/{name}`: a job queued with it fails when it runs (naming the secret). */
export function deleteSecretRoute(api: App, deps: SecretDeps): void {
  api.delete(
    '/api/v1/secrets/:name',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'deleteSecret',
        summary: "Delete one of the caller's secrets",
        tags: ['secrets'],
        security: CALLER_SECURITY,
        params: SecretParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...secretErrors },
      },
    },
    async (request, reply) => {
      if (!(await deleteSecret(deps.db, request.auditOwner, request.params.name)))
        throw new HttpError(404, codeForStatus(404), `no secret ${request.params.name}`);
      return reply.code(204).send(null);
    },
  );
}
