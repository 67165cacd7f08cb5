import { toNumber } from './data.ts';
import { formatDate, formatDateTime } from '../app/datetime.ts';

/** How a value is written in tables, axes and tooltips (Grafana's units, Metabase's column formatting). */
export const FORMATS = [
  { value: 'number', label: 'Number' },
  { value: 'percent', label: 'Percent (0.25 is 25%)' },
  { value: 'currency', label: 'Currency' },
  { value: 'bytes', label: 'Bytes' },
  { value: 'duration', label: 'Duration (seconds)' },
  { value: 'date', label: 'Date' },
  { value: 'datetime', label: 'Date and time' },
] as const;
export type Format = (typeof FORMATS)[number]['value'];
export const isFormat = (v: unknown): v is Format => FORMATS.some((f) => f.value === v);

export interface FormatSettings {
  /** ISO 4217 code for `currency` (USD unless given). */
  currency?: string | undefined;
  /** IANA zone for dates (the viewer's own unless given). */
  timeZone?: string | undefined;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

function duration(seconds: number): string {
  const sign = seconds < 0 ? '-' : '';
  let s = Math.abs(seconds);
  if (s < 1) return `${sign}${Math.round(s * 1000)} ms`;
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)} ${unit}`);
      s %= size;
    }
  }
  if (s > 0 && parts.length < 2) parts.push(`${Math.round(s * 10) / 10} s`);
  return sign + parts.slice(0, 2).join(' ');
}

/** The value as text in `format`; what does not fit the format (text in a number column) is shown as it is. */
export function formatValue(v: unknown, format: Format | undefined, settings: FormatSettings = {}): string {
  if (v === null || v === undefined) return 'NULL';
  if (format === 'date' || format === 'datetime') {
    const t = typeof v === 'number' ? v : Date.parse(String(v));
    if (Number.isNaN(t)) return String(v);
    // An unknown zone is the viewer's own (app/datetime.ts).
    const where = { timeZone: settings.timeZone };
    return format === 'datetime' ? formatDateTime(t, where) : formatDate(t, where);
  }
  const n = toNumber(v);
  if (n === undefined || format === undefined) return typeof v === 'object' ? JSON.stringify(v) : String(v);
  switch (format) {
    case 'percent':
      return new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 2 }).format(n);
    case 'currency':
      try {
        return new Intl.NumberFormat(undefined, { style: 'currency', currency: settings.currency || 'USD' }).format(n);
      } catch {
        return new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' }).format(n);
      }
    case 'bytes': {
      let i = 0;
      let x = Math.abs(n);
      while (x >= 1024 && i < BYTE_UNITS.length - 1) {
        x /= 1024;
        i++;
      }
      return `${n < 0 ? '-' : ''}${new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 }).format(x)} ${BYTE_UNITS[i]}`;
    }
    case 'duration':
      return duration(n);
    default:
      return new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(n);
  }
}
