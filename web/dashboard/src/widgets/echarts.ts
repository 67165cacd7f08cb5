/**
 * ECharts, loaded on first use (dynamic import from Chart.tsx) so the first screen's JavaScript stays small.
 * Only the pieces the widgets draw are registered: line, bar and pie on a canvas, with axes, tooltip, legend and aria.
 */
import { init, use, type EChartsType } from 'echarts/core';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { AriaComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

use([LineChart, BarChart, PieChart, GridComponent, TooltipComponent, LegendComponent, AriaComponent, CanvasRenderer]);

export { init, type EChartsType };
