import { queryOptions } from '@tanstack/react-query';
import type { ApiSite, ApiSiteBody } from '../../../../../src/audit/sites/schemas.ts';
import type { ApiNotices, ApiNotify } from '../../../../../src/audit/notify/schemas.ts';
import { serviceClient } from '../../console/client.ts';

export type { ApiSite, ApiSiteBody };
export type { ApiSchedule, ApiScheduleBody } from '../../../../../src/audit/schedules/schemas.ts';
export type { ApiNoticeTest, ApiNotify, ApiNotifyBody } from '../../../../../src/audit/notify/schemas.ts';

/**
 * The audit service's sites API (src/audit/sites/, schedules/, notify/) as the console calls it, with the server's
 * own types. A site's name and URL were typed by someone: the screens render them as text, the URL only via SafeLink.
 */
export const sitesApi = serviceClient('audits');

/** Under the Audits section's root, so invalidating `['audits']` covers them. */
export const siteKeys = {
  all: ['audits', 'sites'] as const,
  list: () => ['audits', 'sites', 'list'] as const,
  one: (id: string) => ['audits', 'sites', id] as const,
  notify: (id: string) => ['audits', 'sites', id, 'notifications'] as const,
  notices: (id: string) => ['audits', 'sites', id, 'notices'] as const,
};

const active = (site: ApiSite | undefined) =>
  site?.latestRun?.status === 'pending' || site?.latestRun?.status === 'running';

export const sitesQuery = () =>
  queryOptions({
    queryKey: siteKeys.list(),
    queryFn: async ({ signal }) => (await sitesApi.get<{ items: ApiSite[] }>('/sites', signal)).items,
    // A run under way moves on by itself: the list follows it until every run has ended.
    refetchInterval: (q) => (q.state.data?.some((s) => active(s)) ? 2000 : false),
  });

/** One site; read again every second while its latest run is pending or running, for its progress. */
export const siteQuery = (id: string) =>
  queryOptions({
    queryKey: siteKeys.one(id),
    queryFn: ({ signal }) => sitesApi.get<ApiSite>(`/sites/${encodeURIComponent(id)}`, signal),
    refetchInterval: (q) => (active(q.state.data) ? 1000 : false),
  });

export const notifyQuery = (id: string) =>
  queryOptions({
    queryKey: siteKeys.notify(id),
    queryFn: ({ signal }) => sitesApi.get<ApiNotify>(`/sites/${encodeURIComponent(id)}/notifications`, signal),
  });

export const noticesQuery = (id: string) =>
  queryOptions({
    queryKey: siteKeys.notices(id),
    queryFn: async ({ signal }) =>
      (await sitesApi.get<ApiNotices>(`/sites/${encodeURIComponent(id)}/notifications/deliveries`, signal)).items,
  });

/** The address of the runs screen for one site's URL (the Audits section's runs list, `?url=`). */
