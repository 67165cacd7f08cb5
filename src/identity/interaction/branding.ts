import type { Queryable } from '../../kit/db.ts';
import { ORGANIZATION_PARAM } from '../organizations/token-scope.ts';
import { organizationBranding } from '../organizations/branding.ts';
import type { PageOptions } from '../web/layout.ts';

/** What the sign-in and consent pages wear: a brand colour and a logo (apps/brand.ts, apps/logo.ts). */
export interface PageBranding {
  brandColor?: string | undefined;
  logo?: PageOptions['logo'];
}

/** The app's branding, as the provider's client carries it (oidc/clients.ts EXTRA_CLIENT_PROPERTIES). */
function appBranding(client: unknown): PageBranding {
  const c = client as
    | { brand_color?: unknown; logo_url?: unknown; clientName?: unknown; clientId?: unknown }
    | undefined;
  const name = typeof c?.clientName === 'string' ? c.clientName : String(c?.clientId ?? '');
  return {
    brandColor: typeof c?.brand_color === 'string' ? c.brand_color : undefined,
    logo: typeof c?.logo_url === 'string' ? { url: c.logo_url, alt: name } : undefined,
  };
}

/**
 * The branding of an authorization request's pages: the organization's it names (its `organization` parameter), each
 * of colour and logo it has set taking precedence, else the app's, else the service's own.
 */
export async function pageBranding(
  db: Queryable,
  client: unknown,
  params: Record<string, unknown>,
): Promise<PageBranding> {
  const app = appBranding(client);
  const org = await organizationBranding(db, params[ORGANIZATION_PARAM]);
  if (!org) return app;
  return {
    brandColor: org.brandColor ?? app.brandColor,
    logo: org.logoUrl ? { url: org.logoUrl, alt: org.name } : app.logo,
  };
}
