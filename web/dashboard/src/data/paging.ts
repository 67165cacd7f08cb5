import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
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

/** A page number a screen keeps itself (in its address), and how it is told of the page to show. */
export interface PagePosition {
  /** 1-based. */
  page: number;
  onPage(page: number): void;
}

/**
 * A `{items, next}` list shown a page at a time with Previous and Next. The pages read so far stay in the cache, so
 * Previous needs no backward paging from the API; new `filters` are another list, which starts at its first page.
 * The page number changes once the page is there, so the screen never names a page it does not show yet.
 *
 * With `position` the screen holds the page number (the explorer keeps it in its address): a page asked for that is
 * not read yet (a reload, a shared link on page 3) is reached by reading the pages before it, one after another, as
 * the API's cursors only go forward; nothing is shown until it is there. A page past the list's end shows its last,
 * and the screen is told so.
 */
export function useCursorPages<T>(
  queryKey: QueryKey,
  path: string,
  filters: PageFilters,
  limit = 25,
  read: PageReader = get,
  position?: PagePosition,
): Pages<T> {
  const list = useListPages<T>(queryKey, path, filters, limit, read);
  const listId = JSON.stringify([queryKey, filters, limit]);
  const [at, setAt] = useState({ listId, index: 0 });
  const loaded = list.data?.pages ?? [];
  const wanted = position ? Math.max(0, position.page - 1) : at.listId === listId ? at.index : 0;
  // Still reading towards the page wanted: the pages before it are read first, while the last read has a next one.
  const reaching = list.data !== undefined && wanted >= loaded.length && Boolean(loaded.at(-1)?.next) && !list.error;
  const { fetchNextPage, isFetching } = list;
  useEffect(() => {
    if (reaching && !isFetching) void fetchNextPage();
  }, [reaching, isFetching, fetchNextPage]);
  const index = Math.min(wanted, Math.max(0, loaded.length - 1));
  const shown = reaching ? undefined : loaded[index];
  // The list ended before the page asked for: its last page is shown, and is the one the screen keeps.
  const onPage = position?.onPage;
  const settled = shown !== undefined && index !== wanted;
  useEffect(() => {
    if (settled) onPage?.(index + 1);
  }, [settled, index, onPage]);
  // While reading towards it, no pager: it would name a page on the way there.
  const hasNext = !reaching && (index + 1 < loaded.length || Boolean(shown?.next));
  const go = (to: number) => (position ? position.onPage(to + 1) : setAt({ listId, index: to }));
  return {
    items: shown?.items,
    page: reaching ? wanted + 1 : index + 1,
    hasNext,
    hasPrevious: !reaching && index > 0,
    next: () => {
      if (!hasNext) return;
      if (index + 1 < loaded.length) go(index + 1);
      else void list.fetchNextPage().then((r) => r.isSuccess && go(index + 1));
    },
    previous: () => go(Math.max(0, index - 1)),
    error: list.error,
  };
}
