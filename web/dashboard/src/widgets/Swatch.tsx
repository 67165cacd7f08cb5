import type { ReactNode } from 'react';
import type { Shape } from './legendEntry.ts';

const SHAPES: Record<Shape, ReactNode> = {
  circle: <circle cx="14" cy="6" r="4" />,
  rect: <rect x="10" y="2" width="8" height="8" />,
  triangle: <polygon points="14,1 19,10 9,10" />,
  diamond: <polygon points="14,0 19,6 14,12 9,6" />,
};

/**
 * A series' colour as a legend shows it: a line through its point's shape for a line (dashed when the chart dashes
 * it), the shape alone for points, a square for bars (striped when the chart stripes them), areas (outlined in dashes
 * when their line is dashed) and slices. `hollow`: the series is hidden, drawn as an outline on the page's background
 * (and a dashed line), so the state shows by shape, not by colour alone. The palette's colours stand 3:1 against each
 * theme's background, outline included (WCAG 1.4.11).
 */
export function Swatch({
  colour,
  line = false,
  shape,
  dashed = false,
  striped = false,
  hollow = false,
}: {
  colour: string;
  line?: boolean | undefined;
  shape?: Shape | undefined;
  dashed?: boolean | undefined;
  striped?: boolean | undefined;
  hollow?: boolean | undefined;
}) {
  const fill = hollow ? 'var(--bg)' : colour;
  if (!line && shape)
    return (
      <svg aria-hidden="true" width="14" height="12" viewBox="7 0 14 12">
        <g stroke={colour} strokeWidth="2" style={{ fill }}>
          {SHAPES[shape]}
        </g>
      </svg>
    );
  return (
    <svg aria-hidden="true" width={line ? 28 : 14} height="12" viewBox={line ? '0 0 28 12' : '0 0 14 12'}>
      <g stroke={colour} strokeWidth="2" style={{ fill }}>
        {line ? (
          <>
            <line x1="0" y1="6" x2="28" y2="6" strokeDasharray={hollow || dashed ? '3 3' : undefined} />
            {SHAPES[shape ?? 'rect']}
          </>
        ) : (
          <rect x="1" y="1" width="12" height="10" rx="1" strokeDasharray={dashed ? '3 2' : undefined} />
        )}
        {striped && !hollow && (
          <path d="M1 5 L5 1 M1 11 L11 1 M7 11 L13 5" stroke="var(--bg)" strokeOpacity="0.6" strokeWidth="1.5" />
        )}
      </g>
    </svg>
  );
}
