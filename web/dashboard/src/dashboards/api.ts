import { queryOptions } from '@tanstack/react-query';
import { api, apiFile } from '../api/client.ts';
import { slugify } from '../app/slug.ts';
import { keys } from '../data/keys.ts';
import { useListPages } from '../data/paging.ts';
import type {
  ApiDashboard,
  ApiDashboardBundle,
  ApiImported,
  ApiDashboardListItem,
  ApiDashboardVersion,
  ApiDefinition,
  ApiRenderBody,
  ApiWidgetRunResult,
} from '../api/types.ts';

export interface ListParams {
  page: number;
  perPage: number;
  search: string;
  /** Only dashboards with this tag; '' for all. */
  tag?: string;
  /** Only the caller's favourites. */
  favourites?: boolean;
  sort: 'created_at' | 'updated_at' | 'title';
  order: 'asc' | 'desc';
}
export interface DashboardPage {
  data: ApiDashboardListItem[];
  meta: { total: number; page: number; perPage: number; totalPages: number };
}

/** A page of the dashboards (`{data, meta}`: this list pages by number, with a total), searched and sorted. */
export const dashboardsQuery = (p: ListParams) =>
  queryOptions({
    queryKey: keys.dashboards.list(p),
    queryFn: async ({ signal }) => {
      const q = new URLSearchParams({ page: String(p.page), perPage: String(p.perPage), sort: p.sort, order: p.order });
      if (p.search.trim()) q.set('search', p.search.trim());
      const tag = p.tag?.trim();
      if (tag) q.set('tag', tag);
      if (p.favourites) q.set('favourites', 'true');
      return (await api<DashboardPage>('GET', `/dashboards?${q}`, { signal })).data;
    },
  });

/** A dashboard and its ETag: the version a later save must still match. */
export interface Loaded {
  dashboard: ApiDashboard;
  etag: string;
}

/** A dashboard with its ETag, cached under its id: saving and restoring put the answer there. */
export const dashboardQuery = (id: number) =>
  queryOptions({
    queryKey: keys.dashboards.one(id),
    queryFn: async ({ signal }): Promise<Loaded> => {
      const r = await api<ApiDashboard>('GET', `/dashboards/${id}`, { signal });
      return { dashboard: r.data, etag: r.headers.get('etag') ?? '' };
    },
  });

/** Saves with If-Match: if someone else saved meanwhile the service answers 412 PRECONDITION_FAILED. */
export async function saveDashboard(
  id: number,
  etag: string,
  body: { title?: string; description?: string | null; tags?: string[]; definition?: ApiDefinition },
): Promise<Loaded> {
  const r = await api<ApiDashboard>('PUT', `/dashboards/${id}`, { body, headers: etag ? { 'if-match': etag } : {} });
  return { dashboard: r.data, etag: r.headers.get('etag') ?? '' };
}

export async function createDashboard(body: {
  slug: string;
  title: string;
  description?: string;
  definition: ApiDefinition;
}): Promise<{ id: number }> {
  return (await api<{ id: number }>('POST', '/dashboards', { body })).data;
}

export async function deleteDashboard(id: number, etag: string): Promise<void> {
  await api('DELETE', `/dashboards/${id}`, { headers: etag ? { 'if-match': etag } : {} });
}

export const VERSIONS_PAGE = 50;
/** The dashboard's versions, newest first, a page at a time ("Load more" follows the cursor to the oldest). */
export const useVersions = (id: number) =>
  useListPages<ApiDashboardVersion>(keys.dashboards.versions(id), `/dashboards/${id}/versions`, {}, VERSIONS_PAGE);

export async function restoreVersion(id: number, version: number, etag: string): Promise<Loaded> {
  const r = await api<ApiDashboard>('POST', `/dashboards/${id}/versions/${version}/restore`, {
    headers: etag ? { 'if-match': etag } : {},
  });
  return { dashboard: r.data, etag: r.headers.get('etag') ?? '' };
}

/**
 * Draws a saved widget: the service runs the SQL stored in the dashboard (viewers may, as with saved queries).
 * `refresh` reads the rows again though the widget's kept result is still fresh.
 */
export async function runWidget(
  id: number,
  widgetId: string,
  params: Record<string, string>,
  signal?: AbortSignal,
  refresh = false,
): Promise<ApiWidgetRunResult> {
  return (
    await api<ApiWidgetRunResult>('POST', `/dashboards/${id}/widgets/${encodeURIComponent(widgetId)}/run`, {
      body: { params, maxRows: 1000, ...(refresh ? { refresh } : {}) },
      ...(signal ? { signal } : {}),
    })
  ).data;
}

/** A query parameter's choices, given the values of the parameters before it (the service sends each query its own). */
export async function parameterOptions(
  id: number,
  name: string,
  params: Record<string, string>,
  signal?: AbortSignal,
): Promise<{ options: string[]; truncated: boolean }> {
  return (
    await api<{ options: string[]; truncated: boolean }>(
      'POST',
      `/dashboards/${id}/parameters/${encodeURIComponent(name)}/options`,
      { body: { params }, ...(signal ? { signal } : {}) },
    )
  ).data;
}

/** The dashboard as a provisioning bundle (data sources by slug), and the file name the service suggests. */
export async function exportDashboard(id: number): Promise<{ bundle: ApiDashboardBundle; filename: string }> {
  const r = await api<ApiDashboardBundle>('GET', `/dashboards/${id}/export`);
  const filename = /filename="([^"]+)"/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? `dashboard-${id}.json`;
  return { bundle: r.data, filename };
}

/**
 * The dashboard as a PNG or PDF file, drawn by the service now with these values, and the name the service gives it.
 * Drawing takes seconds (the service renders the page in a browser); a busy service answers 503 with its reason.
 */
export async function renderDashboardFile(id: number, body: ApiRenderBody): Promise<{ blob: Blob; filename: string }> {
  const r = await apiFile('POST', `/dashboards/${id}/render`, { body });
  const filename =
    /filename="([^"]+)"/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? `dashboard-${id}.${body.format}`;
  return { blob: r.blob, filename };
}

/** Sends a bundle as read from a file: the service checks it and names the field it refuses. */
export async function importDashboards(bundle: unknown, overwrite: boolean): Promise<ApiImported> {
  return (await api<ApiImported>('POST', `/dashboards/import?overwrite=${overwrite}`, { body: bundle })).data;
}

/** A slug from a title, as the create form suggests it. */
export const titleSlug = (title: string) => slugify(title, 'dashboard');

/** Marks or unmarks a dashboard as one of the caller's favourites (the list's star). */
export async function setFavourite(id: number, on: boolean): Promise<void> {
  await api(on ? 'PUT' : 'DELETE', `/dashboards/${id}/favourite`);
}
