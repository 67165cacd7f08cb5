import { useMemo, useState } from 'react';
import { legendEntries } from './legendEntries.ts';

/**
 * A chart's legend and the names it hides. The selection outlives a redraw with new rows of the same series (a
 * refresh, a new time range, a change of theme); a name no longer drawn is dropped from it, so a series that comes back
 * later comes back shown.
 */
export function useLegendSelection(option: Record<string, unknown> | undefined) {
  const entries = useMemo(() => (option ? legendEntries(option) : []), [option]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [seen, setSeen] = useState(entries);
  if (seen !== entries) {
    // Adjusted while rendering (React's way to follow a prop), so no frame draws a stale selection.
    setSeen(entries);
    const names = new Set(entries.map((e) => e.name));
    if ([...hidden].some((n) => !names.has(n))) setHidden(new Set([...hidden].filter((n) => names.has(n))));
  }
  const toggle = (name: string) =>
    setHidden((now) => {
      const next = new Set(now);
      if (!next.delete(name)) next.add(name);
      return next;
    });
  return { entries, hidden, toggle };
}
