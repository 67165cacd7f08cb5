import { Type } from 'typebox';
import type { App } from '../../../kit/app.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { SecretSummary, secretErrors } from '../schemas.ts';
import { listSecrets } from '../store.ts';
import type { SecretDeps } from '../routes.ts';

/** `GET /api/v1/secrets`: the names of the caller's secrets, never their values. */
export function listSecretsRoute(api: App, deps: SecretDeps): void {
  api.get(
    '/api/v1/secrets',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'listSecrets',
        summary: "The caller's secrets by name (at most 100), never their values",
        tags: ['secrets'],
        security: CALLER_SECURITY,
        response: { 200: Type.Object({ items: Type.Array(SecretSummary) }), ...secretErrors },
      },
    },
    async (request) => ({ items: await listSecrets(deps.db, request.auditOwner) }),
  );
}
