import { compareCriteria } from './criteria.ts';

/** Items with criteria and a page, grouped by criterion (an item under each of its criteria), then by page in first-seen order. */
export interface CriterionGroup<T> {
  /** A criterion number, or null for items that map to none. */
  criterion: string | null;
  pages: { url: string; items: T[] }[];
  count: number;
}

export function groupByCriterion<T extends { successCriteria: string[]; pageUrl: string }>(
  items: readonly T[],
): CriterionGroup<T>[] {
  const groups = new Map<string | null, Map<string, T[]>>();
  for (const item of items) {
    const keys = item.successCriteria.length > 0 ? item.successCriteria : [null];
    for (const key of keys) {
      let pages = groups.get(key);
      if (!pages) {
        pages = new Map();
        groups.set(key, pages);
      }
      let list = pages.get(item.pageUrl);
      if (!list) {
        list = [];
        pages.set(item.pageUrl, list);
      }
      list.push(item);
    }
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : compareCriteria(a, b)))
    .map(([criterion, pages]) => ({
      criterion,
      pages: [...pages.entries()].map(([url, list]) => ({ url, items: list })),
      count: [...pages.values()].reduce((n, l) => n + l.length, 0),
    }));
}
