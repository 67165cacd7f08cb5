import type { ReactNode } from 'react';
import { PALETTE } from '../../widgets/chartOption.ts';
import { IMPACT_NAMES, IMPACT_ORDER } from '../api.ts';
import { IMPACT_SYMBOLS } from './trendOption.ts';

const SHAPES: Record<(typeof IMPACT_SYMBOLS)[number], ReactNode> = {
  circle: <circle cx="14" cy="6" r="4" />,
  rect: <rect x="10" y="2" width="8" height="8" />,
  triangle: <polygon points="14,1 19,10 9,10" />,
  diamond: <polygon points="14,0 19,6 14,12 9,6" />,
};

/**
 * The impact chart's legend as text under it: each line's colour and shape beside its impact's name. It wraps with
 * the page at 320 px, where ECharts' own legend ran into the time axis' labels, and a screen reader reads it.
 */
export function ImpactLegend({ dark }: { dark: boolean }) {
  const colours = PALETTE[dark ? 'dark' : 'light'];
  return (
    <ul className="chart-legend" aria-label="Legend">
      {IMPACT_ORDER.map((impact, i) => (
        <li key={impact}>
          <svg aria-hidden="true" width="28" height="12" viewBox="0 0 28 12">
            <g stroke={colours[i]} fill={colours[i]}>
              <line x1="0" y1="6" x2="28" y2="6" strokeWidth="2" />
              {SHAPES[IMPACT_SYMBOLS[i]!]}
            </g>
          </svg>
          {IMPACT_NAMES[impact]}
        </li>
      ))}
    </ul>
  );
}
