import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { registerAppManagementRoutes } from './app-manage-routes.ts';
import { registerPeopleRoutes } from '../people/routes.ts';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { registerOrganizationRoutes } from '../organizations/routes.ts';
import { registerOrganizationPeopleRoutes } from '../organizations/people-routes.ts';
import { registerAdminLogRoutes } from '../admin-log/routes.ts';
import { registerDelegationOverviewRoutes } from '../delegation/overview-routes.ts';
import { registerCredentialRoutes } from '../credentials/routes.ts';
import { registerInviteRoutes } from '../invites/routes.ts';
import type { InviteDeps } from '../invites/send.ts';
import { registerDelegationAdminRoutes } from '../delegation/admin-routes.ts';
import { registerExternalIdentityRoutes } from '../social/admin-routes.ts';
import { registerPasswordLinkAdminRoutes, type PasswordLinkAdminDeps } from '../password-links/admin-routes.ts';
import { registerConsentAdminRoutes } from '../consent/admin-routes.ts';
import { registerPrincipalRoutes } from './principal-routes.ts';
import { registerTokenRoutes } from './token-routes.ts';
import { registerApplicationRoutes } from './application-routes.ts';
import { registerWebhookRoutes, type WebhookRouteDeps } from '../webhooks/routes.ts';
import { registerScimConnectionRoutes } from '../scim/connection-routes.ts';
import { registerEnterpriseSsoRoutes } from '../enterprise-sso/routes.ts';

export interface AdminDeps {
  db: Database;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  scopes: string[];
  invites: InviteDeps;
  passwordLinks: Omit<PasswordLinkAdminDeps, 'db'>;
  /** PLATFORM_SECRET_KEY, for what reads the provider's sealed token payloads (an app's token activity). */
  secretKey: Buffer;
  webhooks: WebhookRouteDeps;
  /** IDENTITY_ISSUER: SCIM's base URL is under it. */
  issuer: string;
}

/**
 * The management API under /api/v1, described in /openapi.json: each resource's routes from its own file, every route
 * declaring ADMIN access (access/rules.ts).
 */
export async function registerAdmin(app: App, deps: AdminDeps): Promise<void> {
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      await registerPrincipalRoutes(scope, deps);
      await registerOrganizationRoutes(scope, deps);
      await registerOrganizationPeopleRoutes(scope, deps);
      registerEnterpriseSsoRoutes(scope, { db: deps.db, secretKey: deps.secretKey, policy: deps.webhooks.policy });
      await registerAdminLogRoutes(scope, deps);
      await registerDelegationOverviewRoutes(scope, deps);
      await registerCredentialRoutes(scope, deps);
      await registerInviteRoutes(scope, deps.invites);
      await registerDelegationAdminRoutes(scope, deps);
      await registerExternalIdentityRoutes(scope, deps);
      await registerPasswordLinkAdminRoutes(scope, { db: deps.db, ...deps.passwordLinks });
      registerTokenRoutes(scope, deps);
      registerConsentAdminRoutes(scope, deps);
      registerApplicationRoutes(scope, deps);
      await registerAppManagementRoutes(scope, deps);
      await registerPeopleRoutes(scope, deps);
      registerWebhookRoutes(scope, deps.webhooks);
      registerScimConnectionRoutes(scope, { db: deps.db, issuer: deps.issuer });
    },
    { prefix: '/api/v1' },
  );
}
