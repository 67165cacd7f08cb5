import type { ApiWidget } from '../api/types.ts';

export type Position = ApiWidget['position'];

/** Keeps a widget on the grid: inside the columns, at least 1×1, never above the top row. */
export function clamp(p: Position, columns: number): Position {
  const w = Math.min(Math.max(1, p.w), columns);
  const h = Math.min(Math.max(1, p.h), 1000);
  const x = Math.min(Math.max(0, p.x), columns - w);
  const y = Math.min(Math.max(0, p.y), 100_000);
  return { x, y, w, h };
}

/** A move (dx, dy) or a resize (dw, dh) of one widget, clamped; the same function serves keys, buttons and the pointer. */
export function moved(p: Position, columns: number, change: { dx?: number; dy?: number; dw?: number; dh?: number }): Position {
  return clamp({ x: p.x + (change.dx ?? 0), y: p.y + (change.dy ?? 0), w: p.w + (change.dw ?? 0), h: p.h + (change.dh ?? 0) }, columns);
}

/** Where a new widget goes: below everything, full width up to `w`. */
export function nextPosition(widgets: readonly ApiWidget[], columns: number, w = 6, h = 6): Position {
  const bottom = widgets.reduce((max, x) => Math.max(max, x.position.y + x.position.h), 0);
  return clamp({ x: 0, y: bottom, w, h }, columns);
}

/** Words for the live region after a move or resize, so a screen reader user hears where the widget is now. */
export function describePosition(title: string, p: Position): string {
  return `${title}: column ${p.x + 1}, row ${p.y + 1}, ${p.w} wide, ${p.h} high.`;
}

/** A fresh widget id, unique within the dashboard. */
export function newWidgetId(widgets: readonly ApiWidget[]): string {
  const ids = new Set(widgets.map((w) => w.id));
  let n = widgets.length + 1;
  while (ids.has(`w${n}`)) n++;
  return `w${n}`;
}
