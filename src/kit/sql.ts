/**
 * A `timestamptz` column as the platform's timestamp text: ISO 8601 in UTC with milliseconds
 * (`2026-11-22T13:10:41.123Z`), the same text JavaScript's `toISOString()` writes, whatever the
 * connection's TimeZone.
 */
export function isoUtc(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
