import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { get } from '../api/client.ts';
import type { ApiPage } from '../api/types.ts';

/** The most a page of the platform's lists may hold (the API's `maxLimit`): the fewest requests for a whole list. */
export const MAX_PAGE = 100;

/** A list's filters: a list of values is the parameter repeated (`?type=a&type=b`). */
export type PageFilters = Record<string, string | readonly string[] | undefined>;

/** `path?limit=…&cursor=…&filters…`: one page of a `{items, next}` list. */
export function pagePath(path: string, limit: number, cursor: string | undefined, filters: PageFilters = {}): string {
  const params = new URLSearchParams({ limit: String(limit) });
  for (const [k, v] of Object.entries(filters)) for (const one of [v ?? []].flat()) if (one) params.append(k, one);
  if (cursor) params.set('cursor', cursor);
  return `${path}?${params}`;
}

/**
 * Every item of a `{items, next}` list, following `next` to the last page: for a select box or a lookup that needs
 * them all (a widget's saved query, the audit log's actors). Nothing is left out however long the list is.
 */
export async function fetchAllPages<T>(path: string, signal?: AbortSignal): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page: ApiPage<T> = await get(pagePath(path, MAX_PAGE, cursor), signal);
    all.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  return all;
}

/** The infinite query of a `{items, next}` list: each page's `next` is the cursor of the one after it. */
/** Reads one page: the dashboard's own API by default, or a console section's service (console/client.ts). */
export type PageReader = <P>(path: string, signal?: AbortSignal) => Promise<P>;

export function useListPages<T>(
  queryKey: QueryKey,
  path: string,
  filters: PageFilters,
  limit: number,
  read: PageReader = get,
) {
  return useInfiniteQuery({
    queryKey: [...queryKey, filters, limit],
    queryFn: ({ pageParam, signal }) => read<ApiPage<T>>(pagePath(path, limit, pageParam, filters), signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });
}

export interface Pages<T> {
  items: T[] | undefined;
  /** 1-based number of the page shown. */
  page: number;
  hasNext: boolean;
  hasPrevious: boolean;
  next(): void;
  previous(): void;
  error: unknown;
}

/**
 * A `{items, next}` list shown a page at a time with Previous and Next. The pages read so far stay in the cache, so
 * Previous needs no backward paging from the API; new `filters` are another list, which starts at its first page.
 * The page number changes once the page is there, so the screen never names a page it does not show yet.
 */
export function useCursorPages<T>(
  queryKey: QueryKey,
  path: string,
  filters: PageFilters,
  limit = 25,
  read: PageReader = get,
): Pages<T> {
  const list = useListPages<T>(queryKey, path, filters, limit, read);
  const listId = JSON.stringify([queryKey, filters, limit]);
  const [at, setAt] = useState({ listId, index: 0 });
  const loaded = list.data?.pages ?? [];
  const index = at.listId === listId ? Math.min(at.index, Math.max(0, loaded.length - 1)) : 0;
  const shown = loaded[index];
  const hasNext = index + 1 < loaded.length || Boolean(shown?.next);
  return {
    items: shown?.items,
    page: index + 1,
    hasNext,
    hasPrevious: index > 0,
    next: () => {
      if (!hasNext) return;
      const to = { listId, index: index + 1 };
      if (index + 1 < loaded.length) setAt(to);
      else void list.fetchNextPage().then((r) => r.isSuccess && setAt(to));
    },
    previous: () => setAt({ listId, index: Math.max(0, index - 1) }),
    error: list.error,
  };
}
