import type { ApiDashboardParameter } from '../api/types.ts';

export const TIME_RANGES: { value: string; label: string; ms: number }[] = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '6h', label: 'Last 6 hours', ms: 6 * 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
  { value: '90d', label: 'Last 90 days', ms: 90 * 86_400_000 },
  { value: '365d', label: 'Last 365 days', ms: 365 * 86_400_000 },
];

/** The value a parameter starts with: its default, else the first choice, the last 24 hours, or empty text. */
export function initialValue(p: ApiDashboardParameter): string {
  if (p.default !== undefined) return p.default;
  if (p.type === 'choice') return p.choices?.[0] ?? '';
  if (p.type === 'time_range') return '24h';
  return '';
}

/**
 * What the queries get: a text or choice under its name, a time range as `<name>_from` and `<name>_to`
 * (ISO 8601 instants, UTC, computed when the widgets are drawn so "last hour" moves with each refresh).
 */
export function queryValues(
  parameters: readonly ApiDashboardParameter[],
  values: Record<string, string>,
  now = Date.now(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of parameters) {
    const v = values[p.name] ?? initialValue(p);
    if (p.type === 'time_range') {
      const range = TIME_RANGES.find((r) => r.value === v) ?? TIME_RANGES[3]!;
      out[`${p.name}_from`] = new Date(now - range.ms).toISOString();
      out[`${p.name}_to`] = new Date(now).toISOString();
    } else {
      out[p.name] = v;
    }
  }
  return out;
}

/** Parameter values given in an address as `var-<name>=<value>` (Grafana's form): a link or a subscription's render. */
export function valuesFromSearch(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) if (k.startsWith('var-') && k.length > 4) out[k.slice(4)] = v;
  return out;
}
