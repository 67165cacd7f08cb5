import { useCallback, useEffect, useState } from 'react';
import { ApiError, get } from '../api/client.ts';
import type { ApiPage } from '../api/types.ts';

export interface Pages<T> {
  items: T[] | undefined;
  /** 1-based number of the page shown. */
  page: number;
  hasNext: boolean;
  hasPrevious: boolean;
  next(): void;
  previous(): void;
  reload(): void;
  error: string;
}

/**
 * Pages of a `{items, next}` list: the cursors seen so far are kept, so "Previous" goes back without the
 * API offering backward paging. A new `query` (filters) starts again at the first page.
 */
export function usePages<T>(path: string, query: Record<string, string | undefined>, limit = 25): Pages<T> {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [data, setData] = useState<ApiPage<T>>();
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(query);

  useEffect(() => setCursors([undefined]), [key]);

  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    let live = true;
    const params = new URLSearchParams({ limit: String(limit) });
    for (const [k, v] of Object.entries(JSON.parse(key) as Record<string, string | undefined>)) if (v) params.set(k, v);
    if (cursor) params.set('cursor', cursor);
    setError('');
    get<ApiPage<T>>(`${path}?${params}`).then(
      (page) => live && setData(page),
      (err: unknown) => live && setError(err instanceof ApiError ? err.message : 'the list could not be loaded'),
    );
    return () => {
      live = false;
    };
  }, [path, key, cursor, limit, tick]);

  return {
    items: data?.items,
    page: cursors.length,
    hasNext: Boolean(data?.next),
    hasPrevious: cursors.length > 1,
    next: useCallback(() => data?.next && setCursors((c) => [...c, data.next!]), [data]),
    previous: useCallback(() => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)), []),
    reload: useCallback(() => setTick((t) => t + 1), []),
    error,
  };
}
