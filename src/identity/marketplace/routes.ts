import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { registerListingRoutes } from './listing-routes.ts';
import { registerLicenseRoutes } from './license-routes.ts';
import { registerSeatRoutes } from './seat-routes.ts';

export interface MarketplaceDeps {
  db: Database;
}

/**
 * Listings, licenses and seats under /api/v1. Every route declares MARKET access (a person's token or a
 * platform admin's, access/rules.ts); authorization is per record, by the caller's memberships (records.ts):
 * anyone signed in sees published listings, members see their organizations' records, and owners and
 * admins of an organization manage them. What a caller may not see is 404, not 403.
 */
export async function registerMarketplace(app: App, deps: MarketplaceDeps): Promise<void> {
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      registerListingRoutes(scope, deps.db);
      registerLicenseRoutes(scope, deps.db);
      registerSeatRoutes(scope, deps.db);
    },
    { prefix: '/api/v1' },
  );
}
