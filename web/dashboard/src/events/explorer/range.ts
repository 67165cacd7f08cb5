/** The explorer's time ranges: presets back from now, or one the person types (their local time). */
export const PRESETS = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  custom: 'Custom',
} as const;
export type Preset = keyof typeof PRESETS;
const HOURS: Record<Exclude<Preset, 'custom'>, number> = { '24h': 24, '7d': 24 * 7, '30d': 24 * 30 };

export interface Range {
  from: string;
  to: string;
  bucket: 'hour' | 'day';
}

/**
 * The range a choice means, as ISO instants, with its bucket: by the hour up to three days, by the day beyond.
 * A preset ends at the next whole hour, so the same query is the same cache entry for the rest of the hour.
 */
export function rangeOf(preset: Preset, since: string, until: string, now = Date.now()): Range | string {
  let from: number;
  let to: number;
  if (preset === 'custom') {
    if (!since || !until) return 'Give both “From” and “Until”.';
    from = new Date(since).getTime();
    to = new Date(until).getTime();
    if (Number.isNaN(from) || Number.isNaN(to)) return '“From” and “Until” must be dates and times.';
    if (from >= to) return '“From” must be earlier than “Until”.';
  } else {
    to = Math.ceil(now / 3_600_000) * 3_600_000;
    from = to - HOURS[preset] * 3_600_000;
  }
  const bucket = to - from <= 3 * 86_400_000 ? 'hour' : 'day';
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket };
}
