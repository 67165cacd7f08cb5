/** The marks a series can carry on its points (ECharts' symbol names). */
export type Shape = 'circle' | 'rect' | 'triangle' | 'diamond';

/** One line of a legend: a series' (or a pie slice's) name and how the chart draws it. */
export interface LegendEntry {
  /** The name ECharts hides and shows the series or slice by. */
  name: string;
  /** What the entry reads, when it says more than the name (a pie's "Other" says how many slices it holds). */
  label?: string;
  colour: string;
  /** Drawn as a line (with `shape` on its points) rather than a filled area; without `line`, `shape` is a point. */
  line?: boolean;
  shape?: Shape;
  /** Its line, or its area's outline, is dashed: its colour repeats an earlier series' (past the palette's end). */
  dashed?: boolean;
  /** Its bars are striped, for the same reason. */
  striped?: boolean;
}
