import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import type { ApiPage, ApiSavedQuery } from '../api/types.ts';
import { keys } from '../data/keys.ts';

type Pages = InfiniteData<ApiPage<ApiSavedQuery>, string | undefined>;

/**
 * A saved query as its save answered it (made, changed, renamed), written into every copy the cache holds before they
 * are read again: a list opened or shown meanwhile has the new name, SQL, time and "changed by" at once, instead of its
 * old copy until the refetch answers (stale-while-revalidate). The service lists by id, so a new query goes at the end
 * of the whole list, and of a page list without a search whose last page is read and has room; elsewhere it appears
 * with the refetch.
 */
export function savedQuerySaved(client: QueryClient, q: ApiSavedQuery): Promise<void> {
  client.setQueryData(keys.savedQueries.one(q.id), q);
  client.setQueryData<ApiSavedQuery[]>(keys.savedQueries.every(), (all) =>
    all?.some((x) => x.id === q.id) ? all.map((x) => (x.id === q.id ? q : x)) : all && [...all, q],
  );
  for (const [key, data] of client.getQueriesData<Pages>({ queryKey: keys.savedQueries.pages() })) {
    if (!data) continue;
    const known = data.pages.some((p) => p.items.some((x) => x.id === q.id));
    const pages = known
      ? data.pages.map((p) => ({ ...p, items: p.items.map((x) => (x.id === q.id ? q : x)) }))
      : appended(data.pages, q, key);
    if (pages) client.setQueryData<Pages>(key, { ...data, pages });
  }
  return client.invalidateQueries({ queryKey: keys.savedQueries.all });
}

/** A deleted saved query taken out of every copy the cache holds before they are read again, as a save is written in. */
export function savedQueryDeleted(client: QueryClient, id: number): Promise<void> {
  client.removeQueries({ queryKey: keys.savedQueries.one(id), exact: true });
  client.setQueryData<ApiSavedQuery[]>(keys.savedQueries.every(), (all) => all?.filter((x) => x.id !== id));
  for (const [key, data] of client.getQueriesData<Pages>({ queryKey: keys.savedQueries.pages() })) {
    if (!data) continue;
    const pages = data.pages.map((p) => ({ ...p, items: p.items.filter((x) => x.id !== id) }));
    client.setQueryData<Pages>(key, { ...data, pages });
  }
  return client.invalidateQueries({ queryKey: keys.savedQueries.all });
}

/** The pages with `q` at the end of the last one, when that is where the list has it; else undefined. */
function appended(pages: Pages['pages'], q: ApiSavedQuery, key: readonly unknown[]) {
  // The key is [...pages(), filters, limit] (data/paging.ts).
  const [filters, limit] = key.slice(-2) as [Record<string, string | undefined>, number];
  const last = pages.at(-1);
  if (!last || last.next || last.items.length >= limit || Object.values(filters).some(Boolean)) return undefined;
  return [...pages.slice(0, -1), { ...last, items: [...last.items, q] }];
}
