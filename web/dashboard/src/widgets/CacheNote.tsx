import type { ApiWidgetRunResult } from '../api/types.ts';

/** "just now", "3 minutes ago", "2 hours ago": how old the rows are. */
export function age(readAt: string, now = Date.now()): string {
  const minutes = Math.floor((now - Date.parse(readAt)) / 60_000);
  if (minutes < 1) return 'less than a minute ago';
  if (minutes < 60) return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'} ago`;
  const hours = Math.floor(minutes / 60);
  return `${hours} ${hours === 1 ? 'hour' : 'hours'} ago`;
}

/**
 * Where a widget's rows came from: kept rows say how old they are, with a button to read them again (Metabase's
 * "Updated N minutes ago" and refresh). Rows read for this view say nothing but offer the same button; a picture
 * (no `onRefresh`) has only the age.
 */
export function CacheNote({
  result,
  title,
  refreshing,
  onRefresh,
}: {
  result: ApiWidgetRunResult;
  title: string;
  refreshing: boolean;
  onRefresh?: (() => void) | undefined;
}) {
  return (
    <>
      {result.served === 'cache' && <span className="hint cache-note">Cached {age(result.cachedAt)}</span>}
      {onRefresh && (
        <button type="button" className="secondary small" disabled={refreshing} onClick={onRefresh}>
          Refresh<span className="visually-hidden"> {title}</span>
        </button>
      )}
    </>
  );
}
