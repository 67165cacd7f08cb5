import { useQueries } from '@tanstack/react-query';
import { keys } from '../../data/keys.ts';
import type { ApiOrganization } from '../orgs/api.ts';
import { identityApi } from '../api.ts';
import type { ApiListing } from './api.ts';

/**
 * The names behind the ids a page of licenses or listings holds (organizations, listings): one request per distinct id,
 * cached under the same keys as the screens that show them, so a name read once is not asked again. An id identity
 * does not answer for stays an id.
 */
export function useNames(ids: { organizations: string[]; listings: string[] }) {
  const orgIds = [...new Set(ids.organizations)];
  const listingIds = [...new Set(ids.listings)];
  const orgs = useQueries({
    queries: orgIds.map((id) => ({
      queryKey: keys.organizations.one(id),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        identityApi.get<ApiOrganization>(`/organizations/${encodeURIComponent(id)}`, signal),
    })),
  });
  const listings = useQueries({
    queries: listingIds.map((id) => ({
      queryKey: keys.market.listing(id),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        identityApi.get<ApiListing>(`/listings/${encodeURIComponent(id)}`, signal),
    })),
  });
  const orgName = new Map(orgIds.map((id, i) => [id, orgs[i]?.data?.name]));
  const listingTitle = new Map(listingIds.map((id, i) => [id, listings[i]?.data?.title]));
  return {
    organization: (id: string) => orgName.get(id) ?? id,
    listing: (id: string) => listingTitle.get(id) ?? id,
  };
}
