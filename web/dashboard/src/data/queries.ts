import { queryOptions } from '@tanstack/react-query';
import { get } from '../api/client.ts';
import type {
  ApiDashboardAccess,
  ApiDashboardSummary,
  ApiDataSource,
  ApiDataSourceDetail,
  ApiSavedQuery,
  ApiSetupStatus,
  ApiShare,
  ApiTable,
  ApiTenant,
  ApiUser,
} from '../api/types.ts';
import { keys } from './keys.ts';
import { fetchAllPages } from './paging.ts';
import { lasting } from './queryClient.ts';

/**
 * The reads more than one screen makes, each with its key and request: a screen that needs one uses these, so the
 * same data is cached once under one key. A read only one screen makes is written beside that screen, with a key from
 * keys.ts all the same.
 */

/** The tenant's data sources (the API answers them all at once). */
export const dataSourcesQuery = () =>
  queryOptions({
    queryKey: keys.dataSources.list(),
    queryFn: async ({ signal }) => (await get<{ dataSources: ApiDataSource[] }>('/datasources', signal)).dataSources,
  });

export const dataSourceQuery = (id: number) =>
  queryOptions({
    queryKey: keys.dataSources.one(id),
    queryFn: ({ signal }) => get<ApiDataSourceDetail>(`/datasources/${id}`, signal),
  });

/**
 * A source's tables and views with their columns: the schema browser shows them, the SQL editor completes them. A
 * failure that may pass (rate limited, the service or the database briefly away, the network) is tried again up to
 * three times, 1, 2 and 4 s apart.
 */
export const schemaQuery = (id: number) =>
  queryOptions({
    queryKey: keys.dataSources.schema(id),
    queryFn: async ({ signal }) =>
      (await get<{ tables: ApiTable[] }>(`/datasources/${id}/schema?columns=true`, signal)).tables,
    retry: (failures, err) => failures < 3 && !lasting(err),
    retryDelay: (failures) => 1000 * 2 ** failures,
  });

/** Every saved query of the tenant, every page: a widget may use any of them. */
export const savedQueriesQuery = () =>
  queryOptions({
    queryKey: keys.savedQueries.every(),
    queryFn: ({ signal }) => fetchAllPages<ApiSavedQuery>('/queries', signal),
  });

/** Every user of the tenant, every page: the audit log names actors and offers each as a filter. */
export const allUsersQuery = () =>
  queryOptions({
    queryKey: keys.users.every(),
    queryFn: ({ signal }) => fetchAllPages<ApiUser>('/admin/users', signal),
  });

export const tenantsQuery = () =>
  queryOptions({
    queryKey: keys.tenants,
    queryFn: ({ signal }) => fetchAllPages<ApiTenant>('/admin/tenants', signal),
  });

/** Whether the first owner is still to be made, and whether identity runs beside the dashboard (password links). */
export const setupQuery = () =>
  queryOptions({
    queryKey: keys.setup,
    queryFn: ({ signal }) => get<ApiSetupStatus>('/setup', signal),
  });

/** The dashboards changed last, for Home. */
export const recentDashboardsQuery = (count: number) =>
  queryOptions({
    queryKey: keys.dashboards.list({ recent: count }),
    queryFn: async ({ signal }) =>
      (
        await get<{ data: ApiDashboardSummary[] }>(
          `/dashboards?page=1&perPage=${count}&sort=updated_at&order=desc`,
          signal,
        )
      ).data,
  });

export const accessQuery = (id: number) =>
  queryOptions({
    queryKey: keys.dashboards.access(id),
    queryFn: ({ signal }) => get<ApiDashboardAccess>(`/dashboards/${id}/access`, signal),
  });

export const shareQuery = (id: number) =>
  queryOptions({
    queryKey: keys.dashboards.share(id),
    queryFn: ({ signal }) => get<ApiShare>(`/dashboards/${id}/share`, signal),
  });
