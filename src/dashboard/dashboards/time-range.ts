/** The presets a time range parameter offers: a query gets `:<name>_from` and `:<name>_to` as ISO 8601 instants in UTC. */
export const TIME_RANGES = ['15m', '1h', '6h', '24h', '7d', '30d', '90d', '365d'] as const;

const INSTANT = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})`;
const INTERVAL = new RegExp(`^(${INSTANT})/(${INSTANT})$`);

/**
 * An absolute time range, an ISO 8601 interval `<from>/<to>` of instants with their zone (as the web app writes it
 * in its address): its bounds in milliseconds; undefined when the value is not of that form. `from` must be
 * before `to`, which `timeRangeProblem` says.
 */
export function absoluteRange(v: string): { from: number; to: number } | undefined {
  const m = INTERVAL.exec(v);
  if (!m) return undefined;
  const from = Date.parse(m[1]!);
  const to = Date.parse(m[2]!);
  return Number.isFinite(from) && Number.isFinite(to) ? { from, to } : undefined;
}

/** What is wrong with a time range value (a preset or an absolute range), or undefined when it is right. */
export function timeRangeProblem(v: string): string | undefined {
  if ((TIME_RANGES as readonly string[]).includes(v)) return undefined;
  const r = absoluteRange(v);
  if (!r)
    return `one of ${TIME_RANGES.join(', ')}, or an absolute range "<from>/<to>" of ISO 8601 instants with their zone (2026-01-01T00:00:00Z/2026-01-02T00:00:00Z)`;
  if (r.from >= r.to) return 'an absolute range starts before it ends (from < to)';
  return undefined;
}
