/** The marks a series can carry on its points (ECharts' symbol names). */
export type Shape = 'circle' | 'rect' | 'triangle' | 'diamond';

/** One line of a legend: a series' (or a pie slice's) name and how the chart draws it. */
export interface LegendEntry {
  name: string;
  colour: string;
  /** Drawn as a line (with `shape` on its points) rather than a filled area. */
  line?: boolean;
  shape?: Shape;
}
