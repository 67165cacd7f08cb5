import type { App } from '../../../kit/app.ts';
import { HttpError, codeForStatus } from '../../../kit/errors.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { SecretBody, SecretParams, SecretSummary, secretErrors } from '../schemas.ts';
import { TooManySecretsError, putSecret } from '../store.ts';
import type { SecretDeps } from '../routes.ts';

/** `PUT /api/v1/secrets/{name}`: stores or replaces a secret; answers its name and dates, never the value. */
export function putSecretRoute(api: App, deps: SecretDeps): void {
  api.put(
    '/api/v1/secrets/:name',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'putSecret',
        summary: "Store or replace one of the caller's secrets, for sign-in steps, cookies and headers",
        description:
          'The value is kept encrypted (AES-256-GCM with PLATFORM_SECRET_KEY) and is never answered by any endpoint.',
        tags: ['secrets'],
        security: CALLER_SECURITY,
        params: SecretParams,
        body: SecretBody,
        response: {
          200: { ...SecretSummary, description: 'The secret was replaced' },
          201: { ...SecretSummary, description: 'The secret was stored' },
          ...secretErrors,
        },
      },
    },
    async (request, reply) => {
      try {
        const { record, created } = await putSecret(
          deps.db,
          deps.secretKey,
          request.auditOwner,
          request.params.name,
          request.body.value,
        );
        return reply.code(created ? 201 : 200).send(record);
      } catch (err) {
        if (err instanceof TooManySecretsError) throw new HttpError(409, codeForStatus(409), err.message);
        throw err;
      }
    },
  );
}
