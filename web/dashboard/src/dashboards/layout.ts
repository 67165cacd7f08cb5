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
export function moved(
  p: Position,
  columns: number,
  change: { dx?: number; dy?: number; dw?: number; dh?: number },
): Position {
  return clamp(
    { x: p.x + (change.dx ?? 0), y: p.y + (change.dy ?? 0), w: p.w + (change.dw ?? 0), h: p.h + (change.dh ?? 0) },
    columns,
  );
}

const overlaps = (a: Position, b: Position) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * After widget `id` moved or grew, the widgets it now covers move down until nothing overlaps (the moved one keeps
 * its place, as in Grafana's and react-grid-layout's editors), so no widget hides another's controls.
 */
export function pushDown<W extends { id: string; position: Position }>(widgets: readonly W[], id: string): W[] {
  const moved = widgets.find((w) => w.id === id);
  if (!moved) return [...widgets];
  const placed: Position[] = [moved.position];
  const next = new Map<string, Position>([[id, moved.position]]);
  const rest = widgets
    .filter((w) => w.id !== id)
    .sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x);
  for (const w of rest) {
    let p = w.position;
    for (let hit = placed.find((o) => overlaps(p, o)); hit; hit = placed.find((o) => overlaps(p, o)))
      p = { ...p, y: hit.y + hit.h };
    placed.push(p);
    next.set(w.id, p);
  }
  return widgets.map((w) => (next.get(w.id) === w.position ? w : { ...w, position: next.get(w.id)! }));
}

type Placed = { id: string; position: Position };

/**
 * Vertical compaction, as Grafana's and react-grid-layout's grids do it: in reading order (row, then column), each
 * widget floats up until it touches the top or a widget above it, so no empty row is left above any widget. `first`
 * (the widget just moved) wins a tie on its row, so it keeps its place and the others flow around it.
 */
export function compact<W extends Placed>(widgets: readonly W[], first?: string): W[] {
  const order = [...widgets].sort(
    (a, b) =>
      a.position.y - b.position.y || Number(b.id === first) - Number(a.id === first) || a.position.x - b.position.x,
  );
  const placed: Position[] = [];
  const next = new Map<string, Position>();
  for (const w of order) {
    let p = w.position;
    while (p.y > 0 && !placed.some((o) => overlaps({ ...p, y: p.y - 1 }, o))) p = { ...p, y: p.y - 1 };
    for (let hit = placed.find((o) => overlaps(p, o)); hit; hit = placed.find((o) => overlaps(p, o)))
      p = { ...p, y: hit.y + hit.h };
    placed.push(p);
    next.set(w.id, p);
  }
  const same = (a: Position, b: Position) => a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
  return widgets.map((w) => (same(next.get(w.id)!, w.position) ? w : { ...w, position: next.get(w.id)! }));
}

/** Widget `id` put at `target`: what it covers goes down, then everything floats up (a drag, a resize, a sideways step). */
export function placed<W extends Placed>(widgets: readonly W[], id: string, target: Position): W[] {
  return compact(
    pushDown(
      widgets.map((w) => (w.id === id ? { ...w, position: target } : w)),
      id,
    ),
    id,
  );
}

const sharesColumns = (a: Position, b: Position) => a.x < b.x + b.w && b.x < a.x + a.w;

/**
 * One keyboard or button step of widget `id` on a compacted grid. Sideways steps and resizes are clamped and placed;
 * as the grid leaves no gaps, a step down passes the next widget below (they swap rows) and a step up passes the
 * next widget above; with nothing there, the widget stays.
 */
export function stepped<W extends Placed>(
  widgets: readonly W[],
  id: string,
  columns: number,
  change: { dx?: number; dy?: number; dw?: number; dh?: number },
): W[] {
  const w = widgets.find((x) => x.id === id);
  if (!w) return [...widgets];
  const p = w.position;
  const dy = change.dy ?? 0;
  if (dy === 0) return placed(widgets, id, moved(p, columns, change));
  const others = widgets.filter((o) => o.id !== id && sharesColumns(o.position, p)).map((o) => o.position);
  const at = (y: number) =>
    compact(
      widgets.map((x) => (x.id === id ? { ...x, position: { ...p, y } } : x)),
      id,
    );
  if (dy > 0) {
    const below = others.filter((o) => o.y >= p.y + p.h).sort((a, b) => a.y - b.y)[0];
    // Just past the top of the widget below: in reading order that one now comes first and floats up; this follows.
    return below ? at(below.y + 1) : [...widgets];
  }
  // On the row of the widget above: winning the tie, this one goes first and that one follows below.
  const above = others.filter((o) => o.y + o.h <= p.y).sort((a, b) => b.y + b.h - (a.y + a.h))[0];
  return above ? at(above.y) : [...widgets];
}

/** Where a new widget goes: the first free place of its size, row by row from the top left (as Grafana adds panels). */
export function nextPosition(widgets: readonly ApiWidget[], columns: number, w = 6, h = 6): Position {
  const size = clamp({ x: 0, y: 0, w, h }, columns);
  const bottom = widgets.reduce((max, x) => Math.max(max, x.position.y + x.position.h), 0);
  for (let y = 0; y <= bottom; y++) {
    for (let x = 0; x + size.w <= columns; x++) {
      const p = { ...size, x, y };
      if (!widgets.some((o) => overlaps(p, o.position))) return p;
    }
  }
  return { ...size, x: 0, y: bottom };
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
