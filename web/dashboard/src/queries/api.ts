import { queryOptions } from '@tanstack/react-query';
import { api, get } from '../api/client.ts';
import type { ApiHistoryItem, ApiSavedQuery } from '../api/types.ts';
import { keys } from '../data/keys.ts';

/** One saved query, to open it in the SQL editor. */
export const savedQueryQuery = (id: number) =>
  queryOptions({
    queryKey: keys.savedQueries.one(id),
    queryFn: ({ signal }) => get<ApiSavedQuery>(`/queries/${id}`, signal),
  });

/** The person's last runs in the SQL editor, newest first (the service keeps 100). */
export const historyQuery = (limit: number) =>
  queryOptions({
    queryKey: keys.history(limit),
    queryFn: async ({ signal }) =>
      (await get<{ items: ApiHistoryItem[] }>(`/query-history?limit=${limit}`, signal)).items,
  });

export async function updateSavedQuery(
  id: number,
  body: { name?: string; query?: string; dataSourceId?: number },
): Promise<ApiSavedQuery> {
  return (await api<ApiSavedQuery>('PUT', `/queries/${id}`, { body })).data;
}

export async function deleteSavedQuery(id: number): Promise<void> {
  await api('DELETE', `/queries/${id}`);
}

export async function clearHistory(): Promise<void> {
  await api('DELETE', '/query-history');
}
