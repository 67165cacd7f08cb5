import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { OPEN } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import { createFirstOwner } from './first-owner.ts';
import { SetupBody, SetupResultSchema, SetupStatusSchema } from './schemas.ts';
import { noUsersYet } from './store.ts';

const tags = ['setup'];

/**
 * First run (Grafana's and Metabase's "create the first admin"): while the installation has no user at
 * all, anyone who can reach it may create the first tenant and its owner, once. The owner then signs in
 * with a provider that verifies that email; when `platform start` runs identity beside the dashboard, the form also
 * takes a password and the owner gets an account there to sign in with. Any user existing (made here, by
 * DASHBOARD_BOOTSTRAP_OWNER or by the CLI) closes it for good: 409.
 */
export function registerSetupRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/setup',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'getSetupStatus',
        tags,
        summary: 'Whether the first owner still has to be created',
        response: { 200: SetupStatusSchema, ...errorResponses(429) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const linked = ctx.config.links?.identity;
      return {
        setupRequired: await noUsersYet(ctx.db),
        platformAccount: linked !== undefined,
        ...(linked ? { minPasswordLength: linked.minPasswordLength } : {}),
      };
    },
  );

  app.post(
    '/api/v1/setup',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'createFirstOwner',
        tags,
        summary: 'Create the first tenant and its owner; refused (409) once any user exists',
        body: SetupBody,
        response: { 201: SetupResultSchema, ...errorResponses(400, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await createFirstOwner(ctx, request.body, request.log)),
  );
}
