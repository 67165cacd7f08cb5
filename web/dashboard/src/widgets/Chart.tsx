import { useEffect, useRef, useState } from 'react';
import type { EChartsType } from './echarts.ts';

/**
 * An ECharts canvas. The library is imported on first use; `data-drawn` is set when ECharts reports the frame
 * finished (tests and the benchmark wait for it). The canvas is hidden from assistive technology: the widget's
 * summary and its data table are the text alternative.
 */
export function Chart({ option, summary }: { option: Record<string, unknown>; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | undefined>(undefined);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let gone = false;
    let observer: ResizeObserver | undefined;
    import('./echarts.ts').then(({ init }) => {
      const el = box.current;
      if (gone || !el) return;
      const c = init(el, undefined, { renderer: 'canvas' });
      chart.current = c;
      c.on('finished', () => { el.dataset.drawn = 'true'; });
      observer = new ResizeObserver(() => c.resize());
      observer.observe(el);
    }, () => setFailed(true));
    return () => {
      gone = true;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = undefined;
    };
  }, []);

  useEffect(() => {
    const set = () => {
      if (!chart.current) return false;
      delete box.current?.dataset.drawn;
      chart.current.setOption(option, { notMerge: true });
      return true;
    };
    if (set()) return;
    // The library may still be loading: try again when it is.
    let gone = false;
    void import('./echarts.ts').then(() => queueMicrotask(() => { if (!gone) set(); }));
    return () => { gone = true; };
  }, [option]);

  if (failed) return <p role="alert" className="error">The chart library could not be loaded.</p>;
  return <div ref={box} className="chart" role="img" aria-label={summary} />;
}
