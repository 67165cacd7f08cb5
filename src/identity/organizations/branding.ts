import type { Queryable } from '../../kit/db.ts';

export interface OrganizationBranding {
  name: string;
  brandColor: string | null;
  logoUrl: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The branding of the active organization an authorization request names (its `organization` parameter, an id or a
 * slug, token-scope.ts), or undefined: the sign-in and consent pages then wear the app's own.
 */
export async function organizationBranding(
  db: Queryable,
  idOrSlug: unknown,
): Promise<OrganizationBranding | undefined> {
  if (typeof idOrSlug !== 'string' || idOrSlug.length > 63) return undefined;
  const byId = UUID.test(idOrSlug);
  const r = await db.query<{ name: string; brand_color: string | null; logo_url: string | null }>(
    `SELECT name, brand_color, logo_url FROM organizations WHERE active AND ${byId ? 'id = $1::uuid' : 'slug = $1'}`,
    [idOrSlug],
  );
  const o = r.rows[0];
  return o ? { name: o.name, brandColor: o.brand_color, logoUrl: o.logo_url } : undefined;
}
