import type { LegendEntry } from './legendEntry.ts';
import { Swatch } from './Swatch.tsx';

/**
 * A chart's legend as a list under its canvas (not ECharts' own, drawn into the canvas): it wraps with the page at
 * 320 px instead of running into the axis' labels, a screen reader reads it, and, given `onToggle`, each entry is a
 * button that hides or shows its series, so the keyboard can do what a mouse did on ECharts' legend. Pressed: shown.
 */
export function Legend({
  entries,
  hidden,
  onToggle,
}: {
  entries: readonly LegendEntry[];
  hidden?: ReadonlySet<string> | undefined;
  onToggle?: ((name: string) => void) | undefined;
}) {
  return (
    <ul className="chart-legend" aria-label="Legend">
      {entries.map((e) => {
        const off = hidden?.has(e.name) ?? false;
        const mark = (
          <Swatch colour={e.colour} line={e.line} shape={e.shape} dashed={e.dashed} striped={e.striped} hollow={off} />
        );
        return (
          <li key={e.name}>
            {onToggle ? (
              <button type="button" aria-pressed={!off} onClick={() => onToggle(e.name)}>
                {mark}
                {e.label ?? e.name}
              </button>
            ) : (
              <>
                {mark}
                {e.label ?? e.name}
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}
