import { useMemo, useRef, type CSSProperties, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import type { ApiWidget } from '../api/types.ts';
import { compact, describePosition, moved, placed, stepped } from './layout.ts';

const GAP = 8;

interface GridProps {
  widgets: readonly ApiWidget[];
  columns: number;
  rowHeight: number;
  editing: boolean;
  render: (w: ApiWidget) => ReactNode;
  /** The whole layout after a move or resize of one widget, already compacted. */
  onLayout?: (widgets: ApiWidget[]) => void;
  onAnnounce?: (message: string) => void;
  onConfigure?: (id: string) => void;
  onRemove?: (id: string) => void;
  /** A picture, which cannot scroll: a row grows past `rowHeight` until every widget on it shows whole. */
  still?: boolean;
}

const KEYS: Record<string, { dx?: number; dy?: number; dw?: number; dh?: number }> = {
  ArrowLeft: { dx: -1 },
  ArrowRight: { dx: 1 },
  ArrowUp: { dy: -1 },
  ArrowDown: { dy: 1 },
};
const RESIZE: Record<string, { dw?: number; dh?: number }> = {
  ArrowLeft: { dw: -1 },
  ArrowRight: { dw: 1 },
  ArrowUp: { dh: -1 },
  ArrowDown: { dh: 1 },
};
const BUTTONS: { label: string; symbol: string; change: { dx?: number; dy?: number; dw?: number; dh?: number } }[] = [
  { label: 'Move left', symbol: '←', change: { dx: -1 } },
  { label: 'Move right', symbol: '→', change: { dx: 1 } },
  { label: 'Move up', symbol: '↑', change: { dy: -1 } },
  { label: 'Move down', symbol: '↓', change: { dy: 1 } },
  { label: 'Narrower', symbol: 'Narrower', change: { dw: -1 } },
  { label: 'Wider', symbol: 'Wider', change: { dw: 1 } },
  { label: 'Shorter', symbol: 'Shorter', change: { dh: -1 } },
  { label: 'Taller', symbol: 'Taller', change: { dh: 1 } },
];

/**
 * The dashboard's grid: widgets placed by their {x, y, w, h} on `columns` columns of `rowHeight` pixels. In edit
 * mode a widget moves by dragging its title bar and resizes by dragging its corner; with the keyboard, the focused
 * widget moves with the arrow keys and resizes with Shift+arrows, or with its buttons. Each change is announced.
 */
export function Grid({
  widgets,
  columns,
  rowHeight,
  editing,
  render,
  onLayout,
  onAnnounce,
  onConfigure,
  onRemove,
  still = false,
}: GridProps) {
  const grid = useRef<HTMLDivElement>(null);
  // Saved layouts may have gaps (made before compaction, or through the API): they show, and are edited, compacted.
  const laid = useMemo(() => compact(widgets), [widgets]);
  const change = (w: ApiWidget, c: { dx?: number; dy?: number; dw?: number; dh?: number }) => {
    const next = stepped(laid, w.id, columns, c);
    onLayout?.(next);
    onAnnounce?.(describePosition(w.title ?? w.id, next.find((x) => x.id === w.id)!.position));
  };

  const onKey = (w: ApiWidget) => (e: KeyboardEvent<HTMLElement>) => {
    if (!editing || e.target !== e.currentTarget) return;
    const c = e.shiftKey ? RESIZE[e.key] : KEYS[e.key];
    if (!c) return;
    e.preventDefault();
    change(w, c);
  };

  /** A drag in cells: the pointer's travel divided by a column's width and a row's height. */
  const drag = (w: ApiWidget, mode: 'move' | 'resize') => (e: PointerEvent<HTMLElement>) => {
    if (!editing || e.button !== 0 || !grid.current) return;
    if ((e.target as HTMLElement).closest('button')) return;
    e.preventDefault();
    const target = e.currentTarget;
    target.setPointerCapture(e.pointerId);
    const rect = grid.current.getBoundingClientRect();
    const cell = { w: (rect.width + GAP) / columns, h: rowHeight + GAP };
    // Each pointer step places the widget in the layout as it was when the drag began, so widgets pushed aside on
    // the way come back when the pointer moves on.
    const start = { x: e.clientX, y: e.clientY, p: w.position, layout: laid };
    let last = w.position;
    let lastLayout = laid;
    const onMovePointer = (ev: globalThis.PointerEvent) => {
      const dx = Math.round((ev.clientX - start.x) / cell.w);
      const dy = Math.round((ev.clientY - start.y) / cell.h);
      const next = moved(start.p, columns, mode === 'move' ? { dx, dy } : { dw: dx, dh: dy });
      if (next.x !== last.x || next.y !== last.y || next.w !== last.w || next.h !== last.h) {
        last = next;
        lastLayout = placed(start.layout, w.id, next);
        onLayout?.(lastLayout);
      }
    };
    const onUp = () => {
      target.removeEventListener('pointermove', onMovePointer);
      target.removeEventListener('pointerup', onUp);
      target.removeEventListener('pointercancel', onUp);
      onAnnounce?.(describePosition(w.title ?? w.id, lastLayout.find((x) => x.id === w.id)!.position));
    };
    target.addEventListener('pointermove', onMovePointer);
    target.addEventListener('pointerup', onUp);
    target.addEventListener('pointercancel', onUp);
  };

  const rows = laid.reduce((max, w) => Math.max(max, w.position.y + w.position.h), 1);
  // Outside edit mode the widgets come in reading order (row, then column): the order a screen reader and Tab follow,
  // and the order they stack in on a narrow screen (styles.css). Edit mode keeps the definition's order, so that a
  // widget moved with the keyboard stays where the focus is.
  const shown = editing ? laid : [...laid].sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x);
  return (
    <div
      ref={grid}
      className={editing ? 'grid editing' : still ? 'grid still' : 'grid'}
      style={{
        gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
        gridTemplateRows: `repeat(${rows}, ${still ? `minmax(${rowHeight}px, auto)` : `${rowHeight}px`})`,
        gap: `${GAP}px`,
      }}
    >
      {shown.map((w) => {
        const title = w.title ?? w.id;
        const p = w.position;
        return (
          <article
            key={w.id}
            className="widget"
            data-widget={w.id}
            aria-labelledby={`wt-${w.id}`}
            style={
              {
                gridColumn: `${p.x + 1} / span ${p.w}`,
                gridRow: `${p.y + 1} / span ${p.h}`,
                '--widget-height': `${p.h * rowHeight + (p.h - 1) * GAP}px`,
              } as CSSProperties
            }
            {...(editing ? { tabIndex: 0, onKeyDown: onKey(w), 'aria-describedby': 'grid-keys' } : {})}
          >
            <header className="widget-head" onPointerDown={editing ? drag(w, 'move') : undefined}>
              <h2 id={`wt-${w.id}`} className="widget-title">
                {title}
              </h2>
              {editing && (
                <div className="widget-tools">
                  <button type="button" className="secondary small" onClick={() => onConfigure?.(w.id)}>
                    Configure<span className="visually-hidden"> {title}</span>
                  </button>
                  <button type="button" className="danger small" onClick={() => onRemove?.(w.id)}>
                    Remove<span className="visually-hidden"> {title}</span>
                  </button>
                </div>
              )}
            </header>
            {editing && (
              <fieldset className="layout-buttons" aria-label={`Layout of ${title}`}>
                {BUTTONS.map((b) => (
                  <button
                    key={b.label}
                    type="button"
                    className="secondary small"
                    aria-label={`${b.label}: ${title}`}
                    onClick={() => change(w, b.change)}
                  >
                    {b.symbol}
                  </button>
                ))}
              </fieldset>
            )}
            <div className="widget-body">{render(w)}</div>
            {editing && <div className="resize-handle" aria-hidden="true" onPointerDown={drag(w, 'resize')} />}
          </article>
        );
      })}
    </div>
  );
}
