import { useEffect, useRef, useState } from 'react';
import type { ClickedPoint } from './clickValue.ts';
import type { EChartsType } from './echarts.ts';
import { hiddenOf, legendActions, withHidden } from './legendSelection.ts';

const NONE: ReadonlySet<string> = new Set();

let library: Promise<typeof import('./echarts.ts')> | undefined;
/** ECharts is fetched once, on the first chart (the first screen does not carry it). */
const loadLibrary = () => (library ??= import('./echarts.ts'));

/** How many data points the chart holds, read back from ECharts itself (tests check a chart is not empty). */
function pointsOf(c: EChartsType): number {
  const series = (c.getOption() as { series?: { data?: unknown[] }[] }).series ?? [];
  return series.reduce((n, s) => n + (s.data?.length ?? 0), 0);
}

interface BrushEnd {
  areas?: { coordRange?: [number, number] }[];
}

/**
 * The selected span in milliseconds: a time axis gives instants; a category axis of dates (bars) gives the first and
 * last bar's index, and the span runs to the bar after the last (or as long again as one bar before it).
 */
function spanOf(c: EChartsType, e: BrushEnd): [number, number] | undefined {
  const range = e.areas?.[0]?.coordRange;
  if (!range) return undefined;
  const axis = ((c.getOption() as { xAxis?: { type?: string; data?: unknown[] }[] }).xAxis ?? [])[0];
  let [from, to] = range;
  if (axis?.type === 'category') {
    const at = (i: number) => Date.parse(String(axis.data?.[Math.round(i)] ?? ''));
    const last = Math.min(Math.round(to), (axis.data?.length ?? 1) - 1);
    const first = Math.max(0, Math.round(from));
    from = at(first);
    to =
      last + 1 < (axis.data?.length ?? 0) ? at(last + 1) : at(last) + (last > 0 ? at(last) - at(last - 1) : 86_400_000);
  }
  return Number.isFinite(from) && Number.isFinite(to) && from < to ? [from, to] : undefined;
}

/**
 * An ECharts canvas. `data-drawn` is set when ECharts reports a frame finished (tests and the benchmark wait for
 * it), with `data-points` the number of data points its series hold. On a time chart whose dashboard has a time range,
 * dragging across selects a span (`data-zoomable`), handed to `onRange`. The canvas is named by `summary` (role img); the widget's data table is the full text alternative.
 * `data-hidden` lists the series ECharts hides (`hidden`), as a JSON array of names. A click on a bar, slice or point is
 * handed to `onPick` (the widget's click behaviour; `data-clickable` says there is one).
 */
export function Chart({
  option,
  summary,
  onRange,
  onPick,
  hidden = NONE,
}: {
  option: Record<string, unknown>;
  summary: string;
  /** The names of the series (or a pie's slices) not to draw, as the page's legend hides them. */
  hidden?: ReadonlySet<string>;
  /** Called with the span selected on a time axis (the option has a `brush`), in milliseconds. */
  onRange?: ((from: number, to: number) => void) | undefined;
  /** Called with the item clicked (a bar, a slice, a point). */
  onPick?: ((point: ClickedPoint) => void) | undefined;
}) {
  const box = useRef<HTMLDivElement>(null);
  const rangeTo = useRef(onRange);
  rangeTo.current = onRange;
  const pickTo = useRef(onPick);
  pickTo.current = onPick;
  const chart = useRef<EChartsType | undefined>(undefined);
  const hiddenNow = useRef(hidden);
  hiddenNow.current = hidden;
  const [failed, setFailed] = useState(false);

  // One chain per option: create the chart on first use, then draw the option (no race between the two).
  useEffect(() => {
    let gone = false;
    loadLibrary().then(
      ({ init }) => {
        const el = box.current;
        if (gone || !el) return;
        if (!chart.current) {
          const c = init(el, undefined, { renderer: 'canvas' });
          c.on('finished', () => {
            el.dataset.drawn = 'true';
            el.dataset.points = String(pointsOf(c));
            el.dataset.valueAxes = String(((c.getOption() as { yAxis?: unknown[] }).yAxis ?? []).length);
            el.dataset.hidden = JSON.stringify(hiddenOf(c));
          });
          c.on('brushEnd', (e) => {
            const span = spanOf(c, e as BrushEnd);
            // The selection is said by the new range's charts; its mark would stay on a redrawn chart otherwise.
            c.dispatchAction({ type: 'brush', areas: [] });
            if (span) rangeTo.current?.(span[0], span[1]);
          });
          c.on('click', (e) => {
            const { dataIndex, name, data } = e as { dataIndex?: number; name?: string; data?: unknown };
            if (typeof dataIndex === 'number') pickTo.current?.({ dataIndex, name, data });
          });
          chart.current = c;
        }
        delete el.dataset.drawn;
        chart.current.setOption(withHidden(option, hiddenNow.current), { notMerge: true });
        if (option.brush) {
          // Dragging across the chart selects a span (no toolbox button to press first).
          chart.current.dispatchAction({
            type: 'takeGlobalCursor',
            key: 'brush',
            brushOption: { brushType: 'lineX', brushMode: 'single' },
          });
          el.dataset.zoomable = 'true';
        } else delete el.dataset.zoomable;
      },
      () => setFailed(true),
    );
    return () => {
      gone = true;
    };
  }, [option]);

  // A series hidden or shown again: ECharts' own legend actions, without drawing the option anew. Before the first
  // draw there is no chart yet, and that draw takes the selection with the option.
  useEffect(() => {
    const el = box.current;
    if (!chart.current || !el) return;
    const actions = legendActions(chart.current, hidden);
    if (actions.length === 0) return;
    delete el.dataset.drawn;
    for (const action of actions) chart.current.dispatchAction(action);
  }, [hidden]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let size = `${el.clientWidth}x${el.clientHeight}`;
    const observer = new ResizeObserver(() => {
      const now = `${el.clientWidth}x${el.clientHeight}`;
      if (now === size || !chart.current) return;
      size = now;
      // A new size is a new frame: "drawn" again once ECharts finishes it.
      delete el.dataset.drawn;
      chart.current.resize();
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.current?.dispose();
      chart.current = undefined;
    };
  }, []);

  if (failed)
    return (
      <p role="alert" className="error">
        The chart library could not be loaded.
      </p>
    );
  return (
    <div
      ref={box}
      className="chart"
      role="img"
      aria-label={summary}
      {...(onPick ? { 'data-clickable': 'true' } : {})}
    />
  );
}
