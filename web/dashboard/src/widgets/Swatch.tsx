import type { ReactNode } from 'react';
import type { Shape } from './legendEntry.ts';

const SHAPES: Record<Shape, ReactNode> = {
  circle: <circle cx="14" cy="6" r="4" />,
  rect: <rect x="10" y="2" width="8" height="8" />,
  triangle: <polygon points="14,1 19,10 9,10" />,
  diamond: <polygon points="14,0 19,6 14,12 9,6" />,
};

/**
 * A series' colour as a legend shows it: a line through its point's shape for a line, a square for bars, areas and
 * slices. `hollow`: the series is hidden, drawn as an outline on the page's background (and a dashed line), so the state
 * shows by shape, not by colour alone. The palette's colours stand 3:1 against each theme's background, outline included (WCAG 1.4.11).
 */
export function Swatch({
  colour,
  line = false,
  shape = 'rect',
  hollow = false,
}: {
  colour: string;
  line?: boolean;
  shape?: Shape;
  hollow?: boolean;
}) {
  return (
    <svg aria-hidden="true" width={line ? 28 : 14} height="12" viewBox={line ? '0 0 28 12' : '0 0 14 12'}>
      <g stroke={colour} strokeWidth="2" style={{ fill: hollow ? 'var(--bg)' : colour }}>
        {line ? (
          <>
            <line x1="0" y1="6" x2="28" y2="6" strokeDasharray={hollow ? '3 3' : undefined} />
            {SHAPES[shape]}
          </>
        ) : (
          <rect x="1" y="1" width="12" height="10" rx="1" />
        )}
      </g>
    </svg>
  );
}
