/**
 * ECharts, loaded on first use (dynamic import from Chart.tsx) so the first screen's JavaScript stays small.
 * Only the pieces the widgets draw are registered: line, bar, pie, scatter, heatmap and gauge on a canvas, with axes, tooltip,
 * legend, the heatmap's visual map and the time charts' range selection (brush).
 * Not ECharts' aria component: it would overwrite the container's aria-label, which names the chart and points to
 * its data table (the text alternative).
 */
import { init, use, type EChartsType } from 'echarts/core';
import { BarChart, GaugeChart, HeatmapChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import {
  BrushComponent,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

use([
  LineChart,
  BarChart,
  PieChart,
  ScatterChart,
  GaugeChart,
  HeatmapChart,
  VisualMapComponent,
  BrushComponent,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  CanvasRenderer,
]);

export { init, type EChartsType };
