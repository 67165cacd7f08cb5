import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { RESOURCE_SERVER } from '../access/rules.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { holdsScope } from './held-scope.ts';

const Subject = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "A token's `sub` (a principal's id), or its `client_id` when it has no `sub` (client credentials).",
});
const Scope = Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' });

/**
 * `POST /api/v1/held-scope`: whether a principal holds a scope now, for a resource server that keeps a credential of
 * its own speaking for a person (the audit service's console keys) and must stop honouring it once the person loses
 * the right, is deactivated or deleted. One scope per question, so a resource server learns no more than it asks.
 */
export async function registerHeldScope(
  app: App,
  deps: { accounts: PrincipalDirectory; clients: ClientStore },
): Promise<void> {
  const scope = app.withTypeProvider<TypeBoxTypeProvider>();
  scope.post(
    '/api/v1/held-scope',
    {
      config: { access: RESOURCE_SERVER },
      schema: {
        operationId: 'getHeldScope',
        tags: ['resource-servers'],
        security: [{ clientBasic: [] }],
        summary: 'Whether a principal holds a scope now (active, and its rights give the scope)',
        description:
          'For a resource server (an app registered with `resource_server`, authenticated with HTTP Basic) that honours a credential of its own on behalf of a person. `held` is false for an unknown, deactivated or deleted principal or app.',
        body: Type.Object({ subject: Subject, scope: Scope }, { additionalProperties: false }),
        response: {
          200: Type.Object({ subject: Subject, scope: Type.String(), held: Type.Boolean() }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const { subject, scope: asked } = request.body;
      return { subject, scope: asked, held: await holdsScope(deps, subject, asked) };
    },
  );
}
