import { useEffect, useRef, useState } from 'react';
import type { EChartsType } from './echarts.ts';

let library: Promise<typeof import('./echarts.ts')> | undefined;
/** ECharts is fetched once, on the first chart (the first screen does not carry it). */
const loadLibrary = () => (library ??= import('./echarts.ts'));

/** How many data points the chart holds, read back from ECharts itself (tests check a chart is not empty). */
function pointsOf(c: EChartsType): number {
  const series = (c.getOption() as { series?: { data?: unknown[] }[] }).series ?? [];
  return series.reduce((n, s) => n + (s.data?.length ?? 0), 0);
}

/**
 * An ECharts canvas. `data-drawn` is set when ECharts reports a frame finished (tests and the benchmark wait for
 * it), with `data-points` the number of data points its series hold. The canvas is named by `summary` (role img); the widget's data table is the full text alternative.
 */
export function Chart({ option, summary }: { option: Record<string, unknown>; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | undefined>(undefined);
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
          });
          chart.current = c;
        }
        delete el.dataset.drawn;
        chart.current.setOption(option, { notMerge: true });
      },
      () => setFailed(true),
    );
    return () => {
      gone = true;
    };
  }, [option]);

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
  return <div ref={box} className="chart" role="img" aria-label={summary} />;
}
