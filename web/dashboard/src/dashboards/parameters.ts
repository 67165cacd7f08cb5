import type { ApiDashboardParameter } from '../api/types.ts';
import { formatDateTimeRange, zoneOf } from '../app/datetime.ts';

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
 * (ISO 8601 instants, UTC, computed when the widgets are drawn so "last hour" moves with each refresh; an absolute
 * range stays put).
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
      const fixed = absoluteRange(v);
      const range = TIME_RANGES.find((r) => r.value === v) ?? TIME_RANGES[3]!;
      out[`${p.name}_from`] = new Date(fixed ? fixed.from : now - range.ms).toISOString();
      out[`${p.name}_to`] = new Date(fixed ? fixed.to : now).toISOString();
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

const INSTANT = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})`;
const INTERVAL = new RegExp(`^(${INSTANT})/(${INSTANT})$`);

/**
 * An absolute time range, written as an ISO 8601 interval `<from>/<to>` of instants with their zone (the service
 * reads the same form): its bounds in milliseconds, or undefined when the value is a preset or not a valid range.
 */
export function absoluteRange(v: string): { from: number; to: number } | undefined {
  const m = INTERVAL.exec(v);
  if (!m) return undefined;
  const from = Date.parse(m[1]!);
  const to = Date.parse(m[2]!);
  return Number.isFinite(from) && Number.isFinite(to) && from < to ? { from, to } : undefined;
}

export const intervalOf = (from: number, to: number) => `${new Date(from).toISOString()}/${new Date(to).toISOString()}`;

/** The address's query with the parameters' values as `var-<name>` (others kept), so a copied link shows the same. */
export function searchWithValues(search: string, values: Record<string, string>): string {
  const q = new URLSearchParams(search);
  for (const k of [...q.keys()]) if (k.startsWith('var-')) q.delete(k);
  for (const [k, v] of Object.entries(values)) q.set(`var-${k}`, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * A parameter's value as the reader of a picture reads it (a subscription's mail): a time range as its preset's
 * name and the minutes it covered when drawn, or an absolute range's two ends, with the time zone; text and choices as
 * they are. `locale` and `timeZone` default to the page's.
 */
export function valueText(
  p: ApiDashboardParameter,
  value: string,
  now = Date.now(),
  { locale, timeZone }: { locale?: string; timeZone?: string } = {},
): string {
  if (p.type !== 'time_range') return value === '' ? '(empty)' : value;
  const fixed = absoluteRange(value);
  const preset = TIME_RANGES.find((r) => r.value === value) ?? TIME_RANGES[3]!;
  const where = { locale, timeZone };
  const span = `${formatDateTimeRange(fixed ? fixed.from : now - preset.ms, fixed ? fixed.to : now, where)} (${zoneOf(where)})`;
  return fixed ? span : `${preset.label}: ${span}`;
}
