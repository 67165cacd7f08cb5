/**
 * Tooltips drawn as ECharts rich text (renderMode 'richText': the page's CSP allows no inline style, which its HTML
 * tooltips need). Rich text reads `{style|text}` as styled text, so a name from the data ("{a|b}", "a}b") lost its
 * braces and letters: ECharts' own tooltips wrap each name in such a block, where a `}` in the name ends it early.
 * These formatters write every name outside any block, with a word joiner (U+2060, no width, no break) after each `{`
 * so that no block can start inside a name: the name is drawn as it is written.
 */

const JOINER = '\u2060';

/** `text` as rich text that draws it letter for letter. */
export const literal = (text: string): string => text.replaceAll('{', `{${JOINER}`);

/** What ECharts hands a tooltip formatter for one point of an axis tooltip (the fields used here). */
export interface AxisPoint {
  seriesName?: string;
  marker?: string;
  /** The point's value, or [x, y] on a time or value axis. */
  value?: unknown;
  /** The axis value the pointer is at, as the axis (or its pointer's label formatter) writes it. */
  axisValueLabel?: string;
}

const pointValue = (p: AxisPoint) => (Array.isArray(p.value) ? p.value.at(-1) : p.value);

/**
 * An axis tooltip: the axis value the pointer is at, then a line per series, its marker, its name and its value as
 * `written` writes it (a missing value is "-", as ECharts writes it).
 */
export function axisTooltip(written: (v: unknown) => string) {
  return (params: AxisPoint | AxisPoint[]): string => {
    const points = Array.isArray(params) ? params : [params];
    const lines = points.map((p) => {
      const v = pointValue(p);
      return `${p.marker ?? ''}${literal(p.seriesName ?? '')}: ${v === null || v === undefined ? '-' : written(v)}`;
    });
    return [literal(points[0]?.axisValueLabel ?? ''), ...lines].join('\n');
  };
}
