/**
 * The schema browser's `filter` as a LIKE pattern: `*` and `?` are wildcards as users type them in file pickers, `%`
 * and `_` keep their SQL meaning, and a filter with no `*`, `?` or `%` matches names that contain it (as Grafana's and
 * Metabase's table pickers do). Matching is case-insensitive; undefined means every table.
 */
export function likePattern(filter: string | undefined): string | null {
  if (filter === undefined || filter === '') return null;
  const p = filter.replace(/\*/g, '%').replace(/\?/g, '_');
  return /[*?%]/.test(filter) ? p : `%${p}%`;
}
