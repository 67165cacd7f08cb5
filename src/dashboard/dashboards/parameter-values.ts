import type { DefinitionValue } from './definition.ts';
import { absoluteRange, type TIME_RANGES } from './time-range.ts';

const RANGE_MS: Record<(typeof TIME_RANGES)[number], number> = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
  '365d': 365 * 86_400_000,
};

/**
 * The values the widgets' queries get, as the dashboard page computes them (web/dashboard parameters.ts): the
 * value fixed by a subscription or an alert rule, else the parameter's default, else its first choice or the last 24 hours; a time range
 * as `<name>_from` and `<name>_to` ending now, or an absolute range's bounds.
 */
export function queryValues(
  parameters: NonNullable<DefinitionValue['parameters']>,
  fixed: Record<string, string>,
  now = Date.now(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of parameters) {
    const v =
      fixed[p.name] ??
      p.default ??
      (p.type === 'choice' ? (p.choices?.[0] ?? '') : p.type === 'time_range' ? '24h' : '');
    if (p.type === 'time_range') {
      const ms = RANGE_MS[v as keyof typeof RANGE_MS] ?? RANGE_MS['24h'];
      const fixedRange = absoluteRange(v);
      const range = fixedRange && fixedRange.from < fixedRange.to ? fixedRange : { from: now - ms, to: now };
      out[`${p.name}_from`] = new Date(range.from).toISOString();
      out[`${p.name}_to`] = new Date(range.to).toISOString();
    } else out[p.name] = v;
  }
  return out;
}
