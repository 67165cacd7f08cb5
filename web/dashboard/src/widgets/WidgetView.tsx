import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useMemo, useRef, useState } from 'react';
import { CacheNote } from './CacheNote.tsx';
import { downloadCsv } from '../app/download.ts';
import type { ApiQueryResult, ApiWidget, ApiWidgetRunResult } from '../api/types.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { chartOption, type Look } from './chartOption.ts';
import { Chart } from './Chart.tsx';
import {
  type ClickAction,
  type ClickedPoint,
  clickColumn,
  clickedValue,
  openLink,
  opensOutside,
} from './clickValue.ts';
import { heatmapColumns, isChart, nothingToPlot, optionsOf, seriesColumns, WIDGET_TYPES } from './data.ts';
import { DataTable } from './DataTable.tsx';
import { Legend } from './Legend.tsx';
import { heldByOther } from './pieSlices.ts';
import { StatWidget } from './StatWidget.tsx';
import { TextWidget } from './TextWidget.tsx';
import { useLegendSelection } from './useLegendSelection.ts';
import { useSameContent } from './useSameContent.ts';

/** What a click on a chart picks, by kind, as its summary says it. */
const ITEMS: Record<string, string> = {
  pie: 'slice',
  bar: 'bar',
  bar_stacked: 'bar',
  bar_horizontal: 'bar',
  heatmap: 'cell',
  gauge: 'gauge',
};

/** Runs a widget's query; `refresh` asks the service for new rows though it keeps fresh ones (the widget's cache time). */
export type Loader = (signal: AbortSignal, refresh?: boolean) => Promise<ApiQueryResult | ApiWidgetRunResult>;

/** Waits `ms`, or rejects as soon as the run is given up (its key changed before the pause ended). */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/**
 * A widget's content: it runs its query (through `load`) when shown and again whenever `reloadKey` changes
 * (parameters, auto-refresh, an edit), keeping the last rows on screen meanwhile. A run is a query of the cache keyed
 * by where the widget is drawn (`scope`), the widget and `reloadKey`: a run whose key changed before it answered is
 * given up (its request aborted). Charts offer their data as a table (the text alternative); a text widget runs nothing.
 * `still`: a picture (a subscription's render), with no button, only what the rows show.
 */
export function WidgetView({
  widget,
  load,
  scope,
  reloadKey,
  look,
  delayMs = 0,
  onZoom,
  click,
  still = false,
}: {
  widget: ApiWidget;
  load: Loader | undefined;
  scope: string;
  reloadKey: string;
  look: Look;
  delayMs?: number;
  /** Sets the dashboard's time range to a span selected on a time chart; absent, charts do not offer it. */
  onZoom?: ((from: number, to: number) => void) | undefined;
  /** What clicking a value does (the widget's click behaviour): a chart's items and its data table's cells act. */
  click?: ClickAction | undefined;
  still?: boolean;
}) {
  // A draft or a reloaded definition holds equal options in new objects; a new chart option redraws the canvas.
  const options = useSameContent(optionsOf(widget));
  const [showTable, setShowTable] = useState(false);
  const tableId = useId();
  const title = widget.title ?? widget.id;

  // Refresh is a new run of its own key that asks the service to read the rows again (once).
  const [refreshes, setRefreshes] = useState(0);
  const wantsRefresh = useRef(false);
  // `load` changes identity on every render of the parent; reloadKey says when the query or its values changed.
  const run = useQuery({
    queryKey: keys.widgetRun(scope, widget.id, `${widget.type}|${reloadKey}|${refreshes}`),
    queryFn: async ({ signal }) => {
      // While SQL is being typed (edit mode) the preview waits for a pause instead of running every keystroke.
      if (delayMs) await pause(delayMs, signal);
      const refresh = wantsRefresh.current;
      wantsRefresh.current = false;
      return load!(signal, refresh);
    },
    enabled: widget.type !== 'text' && load !== undefined,
    placeholderData: keepPreviousData,
    // A result is for the moment it was asked: kept only while the widget may still show it.
    gcTime: 30_000,
  });
  const result = run.data;
  const error = run.error ? messageOf(run.error) : '';

  const zoomable = onZoom !== undefined;
  const option = useMemo(
    () =>
      result && isChart(widget.type)
        ? chartOption(widget.type, result, options, { ...look, zoom: zoomable })
        : undefined,
    [result, widget.type, options, look, zoomable],
  );
  const legend = useLegendSelection(option);

  if (widget.type === 'text') return <TextWidget markdown={options.markdown ?? ''} />;
  if (!load) return <p className="hint">Choose a query for this widget.</p>;
  if (error)
    return (
      <p role="alert" className="error">
        {title}: {error}
      </p>
    );
  if (!result) return <p className="hint">Loading…</p>;
  // A widget that keeps its rows says how old they are and offers to read them again (a picture: only kept rows' age).
  const cacheNote =
    'served' in result && (widget.cacheSeconds ?? 0) > 0 && (!still || result.served === 'cache') ? (
      <CacheNote
        result={result}
        title={title}
        refreshing={run.isFetching}
        onRefresh={
          still
            ? undefined
            : () => {
                wantsRefresh.current = true;
                setRefreshes((n) => n + 1);
              }
        }
      />
    ) : null;
  const csv = still ? null : (
    <button type="button" className="secondary small" onClick={() => downloadCsv(title, result)}>
      Download CSV<span className="visually-hidden"> of {title}</span>
    </button>
  );
  // The keyboard's way to what a click on the chart does: the cells of the clicked column are buttons or links.
  const acting = click && !still ? click : undefined;
  const pickColumn = acting ? clickColumn(widget.type, result, options, acting.column) : undefined;
  const pick =
    acting && pickColumn !== undefined
      ? {
          column: pickColumn,
          cell: (value: string, text: string) => {
            if (acting.kind === 'filter')
              return (
                <button type="button" className="cell-action" onClick={() => acting.set(value)}>
                  <span className="visually-hidden">Filter by {acting.label}: </span>
                  {text}
                </button>
              );
            const href = acting.href(value);
            if (!href) return text;
            const outside = opensOutside(href);
            return (
              <a href={href} {...(outside ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
                {text}
                {outside && <span className="visually-hidden"> (opens in a new tab)</span>}
              </a>
            );
          },
        }
      : undefined;
  if (widget.type === 'table')
    return (
      <div className="chart-widget">
        <DataTable result={result} caption={`${title} data`} options={options} still={still} pick={pick} />
        {(csv || cacheNote) && (
          <div className="widget-actions">
            {csv}
            {cacheNote}
          </div>
        )}
      </div>
    );
  if (widget.type === 'stat')
    return (
      <div className="chart-widget">
        <StatWidget result={result} options={options} />
        {cacheNote && <div className="widget-actions">{cacheNote}</div>}
      </div>
    );
  if (!option)
    return <DataTable result={result} caption={`${title} data`} options={options} still={still} pick={pick} />;
  // An empty canvas says nothing: say why there is nothing to draw, and show what did come back.
  // A gauge draws one number, which may be the only column.
  const empty =
    widget.type === 'gauge'
      ? result.rows.length === 0
        ? 'the query returned no rows.'
        : undefined
      : nothingToPlot(result, options, widget.type);
  if (empty) {
    return (
      <div className="chart-widget">
        <p className="hint">
          {title}: {empty}
        </p>
        {result.rows.length > 0 && (
          <DataTable result={result} caption={`${title} data`} options={options} still={still} pick={pick} />
        )}
      </div>
    );
  }

  const heat = widget.type === 'heatmap' ? heatmapColumns(result, options) : undefined;
  const { x, y } = heat
    ? { x: `${heat.x} and ${heat.category}`, y: heat.value ? [heat.value] : [] }
    : seriesColumns(result, options);
  const kind = WIDGET_TYPES.find((t) => t.value === widget.type)?.label ?? widget.type;
  const held = heldByOther(option);
  const item = ITEMS[widget.type] ?? 'point';
  const clicking = !pick
    ? ''
    : acting?.kind === 'filter'
      ? ` Click a ${item} to filter the dashboard by ${acting.label}; the data table's ${pick.column} buttons do the same.`
      : ` Click a ${item} to open its link; the data table's ${pick.column} links do the same.`;
  const summary = `${kind}: ${title}. ${y.join(', ') || 'no value column'} by ${x ?? 'nothing'}, ${result.rows.length} ${result.rows.length === 1 ? 'row' : 'rows'}.${held ? ` Other holds ${held} of them, drawn as one slice.` : ''}${still ? '' : ' The data table button shows the values.'}${clicking}${option.brush ? ' Drag across the chart to zoom the time range, or type it in From and To.' : ''}`;
  const onPick = pick
    ? (point: ClickedPoint) => {
        const value = clickedValue(widget.type, result, options, point, pick.column);
        if (value === undefined || !acting) return;
        if (acting.kind === 'filter') acting.set(value);
        else {
          const href = acting.href(value);
          if (href) openLink(href);
        }
      }
    : undefined;
  // A picture lists every series, none hidden: it has no button to press.
  if (still)
    return (
      <div className="chart-widget">
        <Chart option={option} summary={summary} />
        {legend.entries.length > 0 && <Legend entries={legend.entries} />}
        {cacheNote && <div className="widget-actions">{cacheNote}</div>}
      </div>
    );
  return (
    <div className="chart-widget">
      {showTable ? (
        <div id={tableId}>
          <DataTable result={result} caption={`${title} data`} options={options} pick={pick} />
        </div>
      ) : (
        <>
          <Chart option={option} summary={summary} onRange={onZoom} onPick={onPick} hidden={legend.hidden} />
          {legend.entries.length > 0 && (
            <Legend entries={legend.entries} hidden={legend.hidden} onToggle={legend.toggle} />
          )}
        </>
      )}
      <div className="widget-actions">
        <button
          type="button"
          className="secondary small"
          aria-expanded={showTable}
          aria-controls={showTable ? tableId : undefined}
          onClick={() => setShowTable(!showTable)}
        >
          {showTable ? 'Show chart' : 'Show data table'}
          <span className="visually-hidden"> of {title}</span>
        </button>
        {csv}
        {cacheNote}
      </div>
    </div>
  );
}
