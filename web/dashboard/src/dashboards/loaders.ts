import { api } from '../api/client.ts';
import type { ApiQueryResult, ApiSavedQuery, ApiWidget } from '../api/types.ts';
import { parameterNames } from '../sql/parameters.ts';
import type { Loader } from '../widgets/WidgetView.tsx';
import { runWidget } from './api.ts';

const only = (sql: string, values: Record<string, string>) => {
  const names = new Set(parameterNames(sql));
  return Object.fromEntries(Object.entries(values).filter(([k]) => names.has(k)));
};

/** Viewing: the service runs the SQL saved in the dashboard, so viewers see charts without writing SQL. */
export const savedWidgetLoader = (
  dashboardId: number,
  w: ApiWidget,
  values: () => Record<string, string>,
): Loader | undefined =>
  w.type === 'text' ? undefined : (signal, refresh) => runWidget(dashboardId, w.id, values(), signal, refresh);

/**
 * Editing: the draft is not saved yet, so an editor's preview runs the widget's SQL itself (`POST /query`) or its
 * saved query, with the values the text names (the service refuses values a statement does not use).
 */
export function draftWidgetLoader(
  w: ApiWidget,
  saved: readonly ApiSavedQuery[],
  values: () => Record<string, string>,
): Loader | undefined {
  if (w.type === 'text') return undefined;
  if (w.savedQueryId !== undefined) {
    const q = saved.find((s) => s.id === w.savedQueryId);
    if (!q) return undefined;
    return async (signal) =>
      (
        await api<ApiQueryResult>('POST', `/queries/${q.id}/run`, {
          body: { params: only(q.query, values()), maxRows: 1000 },
          signal,
        })
      ).data;
  }
  if (w.query && w.dataSourceId !== undefined) {
    const { query, dataSourceId } = w;
    return async (signal) =>
      (
        await api<ApiQueryResult>('POST', '/query', {
          body: { dataSourceId, query, params: only(query, values()), maxRows: 1000 },
          signal,
        })
      ).data;
  }
  return undefined;
}
