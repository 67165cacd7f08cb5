import { PALETTE } from '../../widgets/chartOption.ts';
import { Legend } from '../../widgets/Legend.tsx';
import { IMPACT_NAMES, IMPACT_ORDER } from '../api.ts';
import { IMPACT_SYMBOLS } from './trendOption.ts';

/**
 * The impact chart's legend, in the dashboards' list under the chart (widgets/Legend.tsx): each line's colour and
 * shape beside its impact's name. It only names the lines: the chart hides none of them.
 */
export function ImpactLegend({ dark }: { dark: boolean }) {
  const colours = PALETTE[dark ? 'dark' : 'light'];
  const entries = IMPACT_ORDER.map((impact, i) => ({
    name: IMPACT_NAMES[impact],
    colour: colours[i]!,
    line: true,
    shape: IMPACT_SYMBOLS[i]!,
  }));
  return <Legend entries={entries} />;
}
