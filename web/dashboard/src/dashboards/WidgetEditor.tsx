import { useRef } from 'react';
import type { ApiDashboardParameter, ApiDataSource, ApiSavedQuery, ApiUser, ApiWidget } from '../api/types.ts';
import { mayWriteSql, SQL_WRITERS } from '../app/roles.ts';
import { useFocusOnOpen } from './useFocusOnOpen.ts';
import { linkFor } from '../widgets/clickValue.ts';
import { optionsOf, WIDGET_TYPES } from '../widgets/data.ts';
import { FORMATS, isFormat } from '../widgets/format.ts';
import { ListInput } from './ListInput.tsx';
import { STARTER_SQL } from './starter.ts';
import { WidgetSql } from './WidgetSql.tsx';

/** The cache times offered (Metabase offers a duration per question; these cover a live board to a daily report). */
const CACHE_TIMES = [
  { seconds: 0, label: 'Not kept: read every view' },
  { seconds: 60, label: '1 minute' },
  { seconds: 300, label: '5 minutes' },
  { seconds: 900, label: '15 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 21_600, label: '6 hours' },
  { seconds: 86_400, label: '24 hours' },
];

interface Props {
  me: ApiUser;
  widget: ApiWidget;
  sources: readonly ApiDataSource[];
  saved: readonly ApiSavedQuery[];
  /** The draft's parameters: a click may set a text, choice or query one. */
  parameters: readonly ApiDashboardParameter[];
  onChange: (w: ApiWidget) => void;
  onDone: () => void;
}

/**
 * Configures one widget of the draft: title, kind, its query (SQL on a source or a saved query), how to draw it and
 * what a click on one of its values does.
 */
export function WidgetEditor({ me, widget: w, sources, saved, parameters, onChange, onDone }: Props) {
  // New SQL goes on a source the person may write SQL on; a widget already on another keeps it, read-only here.
  const writable = sources.filter((s) => mayWriteSql(me, s));
  const current = sources.find((s) => s.id === w.dataSourceId);
  const sqlLocked = current !== undefined && !mayWriteSql(me, current);
  const o = optionsOf(w);
  // The editor's change handler is made once; it must change the widget as it is now, not as it was then.
  const latest = useRef(w);
  latest.current = w;
  const setOptions = (patch: Record<string, unknown>) => {
    const next = { ...(w.options ?? {}), ...patch };
    for (const [k, v] of Object.entries(next))
      if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) delete next[k];
    const { options: _old, ...rest } = w;
    onChange(Object.keys(next).length > 0 ? { ...rest, options: next } : rest);
  };
  const mode = w.savedQueryId !== undefined ? 'saved' : 'sql';
  const setMode = (m: string) => {
    const { query: _q, dataSourceId: _d, savedQueryId: _s, ...rest } = w;
    if (m === 'saved') onChange(saved[0] ? { ...rest, savedQueryId: saved[0].id } : rest);
    else onChange(writable[0] ? { ...rest, dataSourceId: writable[0].id, query: w.query ?? STARTER_SQL } : rest);
  };
  const id = (f: string) => `we-${w.id}-${f}`;
  // A single number and a gauge draw one value: no category column.
  const single = w.type === 'stat' || w.type === 'gauge';
  const heading = useFocusOnOpen(w.id);

  return (
    // Escape closes the panel like Done (the changes are already in the draft), returning to the widget.
    <section
      className="panel form"
      aria-labelledby={id('h')}
      onKeyDown={(e) => {
        // Escape inside the SQL editor closes its completion or frees Tab (CodeMirror's), not the panel.
        if (e.key === 'Escape' && !(e.target instanceof Element && e.target.closest('.editor'))) {
          e.preventDefault();
          onDone();
        }
      }}
    >
      <h2 id={id('h')} ref={heading} tabIndex={-1}>
        Configure widget “{w.title ?? w.id}”
      </h2>
      <label htmlFor={id('title')}>Title</label>
      <input
        id={id('title')}
        maxLength={200}
        value={w.title ?? ''}
        onChange={(e) => {
          const { title: _t, ...rest } = w;
          onChange(e.target.value ? { ...rest, title: e.target.value } : rest);
        }}
      />
      <label htmlFor={id('type')}>Kind</label>
      <select
        id={id('type')}
        value={w.type}
        onChange={(e) => {
          const type = e.target.value;
          if (type === 'text') {
            // A text has no values to click: its click behaviour goes with its query.
            const { query: _q, dataSourceId: _d, savedQueryId: _s, click: _c, ...rest } = w;
            onChange({ ...rest, type });
          } else if (w.type === 'text') {
            onChange({
              ...w,
              type,
              ...(writable[0] ? { dataSourceId: writable[0].id, query: w.query ?? STARTER_SQL } : {}),
            });
          } else onChange({ ...w, type });
        }}
      >
        {WIDGET_TYPES.map((t) => (
          <option key={t.value} value={t.value}>
            {t.label}
          </option>
        ))}
      </select>
      {w.type === 'text' ? (
        <>
          <label htmlFor={id('md')}>Text (Markdown)</label>
          <textarea
            id={id('md')}
            rows={6}
            maxLength={20_000}
            value={o.markdown ?? ''}
            onChange={(e) => setOptions({ markdown: e.target.value })}
          />
        </>
      ) : (
        <>
          <label htmlFor={id('mode')}>Data from</label>
          <select id={id('mode')} value={mode} onChange={(e) => setMode(e.target.value)}>
            <option value="sql">SQL on a data source</option>
            <option value="saved" disabled={saved.length === 0}>
              A saved query
            </option>
          </select>
          {mode === 'sql' ? (
            <>
              <label htmlFor={id('source')}>Data source</label>
              <select
                id={id('source')}
                value={w.dataSourceId ?? ''}
                disabled={sqlLocked}
                onChange={(e) => onChange({ ...w, dataSourceId: Number(e.target.value) })}
              >
                {sources.map((s) => (
                  <option key={s.id} value={s.id} disabled={!mayWriteSql(me, s)}>
                    {mayWriteSql(me, s) ? s.name : `${s.name} (SQL by ${SQL_WRITERS[s.sqlRole]})`}
                  </option>
                ))}
              </select>
              <p className="label" aria-hidden="true">
                SQL
              </p>
              <WidgetSql
                widgetId={w.id}
                query={w.query ?? ''}
                sourceId={w.dataSourceId}
                dialect={current?.type ?? 'postgres'}
                locked={sqlLocked}
                onChange={(query) => onChange({ ...latest.current, query })}
              />
              <p id={id('sql-hint')} className="hint">
                {sqlLocked
                  ? `Only ${SQL_WRITERS[current.sqlRole]} write SQL on ${current.name}: this widget's SQL stays as it is. Choose "A saved query" to use another one.`
                  : "Use the dashboard's parameters as :name; a time range named range gives :range_from and :range_to."}
              </p>
            </>
          ) : (
            <>
              <label htmlFor={id('saved')}>Saved query</label>
              <select
                id={id('saved')}
                value={w.savedQueryId ?? ''}
                onChange={(e) => onChange({ ...w, savedQueryId: Number(e.target.value) })}
              >
                {saved.map((q) => (
                  <option key={q.id} value={q.id}>
                    {q.name}
                  </option>
                ))}
              </select>
            </>
          )}
          {w.type !== 'table' && (
            <>
              <label htmlFor={id('x')}>
                {w.type === 'pie'
                  ? 'Label column'
                  : w.type === 'line' || w.type === 'area' || w.type === 'area_stacked'
                    ? 'Time or category column'
                    : w.type === 'scatter'
                      ? 'X column (numbers or categories)'
                      : single
                        ? 'Unused for a single number'
                        : w.type === 'heatmap'
                          ? 'Column category (across)'
                          : 'Category column'}
              </label>
              <input
                id={id('x')}
                value={o.x ?? ''}
                aria-describedby={id('x-hint')}
                disabled={single}
                onChange={(e) => setOptions({ x: e.target.value || undefined })}
              />
              <p id={id('x-hint')} className="hint">
                Empty: the first column.
              </p>
              {w.type === 'heatmap' && (
                <>
                  <label htmlFor={id('ycat')}>Row category (down)</label>
                  <input
                    id={id('ycat')}
                    value={o.yCategory ?? ''}
                    aria-describedby={id('ycat-hint')}
                    onChange={(e) => setOptions({ yCategory: e.target.value || undefined })}
                  />
                  <p id={id('ycat-hint')} className="hint">
                    Empty: the first other column of text.
                  </p>
                </>
              )}
              <label htmlFor={id('y')}>{single || w.type === 'pie' ? 'Value column' : 'Value columns'}</label>
              <ListInput
                id={id('y')}
                value={o.y ?? []}
                aria-describedby={id('y-hint')}
                onList={(y) => setOptions({ y })}
              />
              <p id={id('y-hint')} className="hint">
                Comma-separated; empty: every numeric column.
              </p>
            </>
          )}
          <label htmlFor={id('cache')}>Keep results for</label>
          <select
            id={id('cache')}
            aria-describedby={id('cache-hint')}
            value={w.cacheSeconds ?? 0}
            onChange={(e) => {
              const { cacheSeconds: _c, ...rest } = w;
              const seconds = Number(e.target.value);
              onChange(seconds > 0 ? { ...rest, cacheSeconds: seconds } : rest);
            }}
          >
            {[
              ...CACHE_TIMES,
              ...(w.cacheSeconds && !CACHE_TIMES.some((c) => c.seconds === w.cacheSeconds)
                ? [{ seconds: w.cacheSeconds, label: `${w.cacheSeconds} seconds` }]
                : []),
            ].map((c) => (
              <option key={c.seconds} value={c.seconds}>
                {c.label}
              </option>
            ))}
          </select>
          <p id={id('cache-hint')} className="hint">
            Views within this time show the rows read first, saying how old they are, with a Refresh button.
          </p>
          {w.type !== 'table' && !single && w.type !== 'pie' && (
            <>
              <label htmlFor={id('y2')}>Right axis columns (optional)</label>
              <ListInput id={id('y2')} value={o.y2 ?? []} onList={(y2) => setOptions({ y2 })} />
            </>
          )}
          {w.type !== 'table' && (
            <>
              <label htmlFor={id('format')}>Value format</label>
              <select
                id={id('format')}
                value={o.format ?? ''}
                onChange={(e) => setOptions({ format: e.target.value || undefined })}
              >
                <option value="">Plain</option>
                {FORMATS.map((f) => (
                  <option key={f.value} value={f.value}>
                    {f.label}
                  </option>
                ))}
              </select>
            </>
          )}
          <label htmlFor={id('formats')}>Column formats in tables (optional)</label>
          <ListInput
            id={id('formats')}
            value={Object.entries(o.formats ?? {}).map(([c, f]) => `${c}:${f}`)}
            aria-describedby={id('formats-hint')}
            onList={(pairs) =>
              setOptions({
                formats: Object.fromEntries(
                  pairs.map((p) => p.split(':').map((x) => x.trim())).filter(([c, f]) => c && isFormat(f)),
                ),
              })
            }
          />
          <p id={id('formats-hint')} className="hint">
            column:format, comma-separated; formats: {FORMATS.map((f) => f.value).join(', ')}.
          </p>
          <label htmlFor={id('currency')}>Currency (ISO code, optional)</label>
          <input
            id={id('currency')}
            maxLength={3}
            value={o.currency ?? ''}
            onChange={(e) => setOptions({ currency: e.target.value.toUpperCase() || undefined })}
          />
          <label htmlFor={id('zone')}>Time zone for dates (optional)</label>
          <input
            id={id('zone')}
            maxLength={64}
            aria-describedby={id('zone-hint')}
            value={o.timeZone ?? ''}
            onChange={(e) => setOptions({ timeZone: e.target.value || undefined })}
          />
          <p id={id('zone-hint')} className="hint">
            Such as Europe/Paris; empty: each viewer's own.
          </p>
          {w.type === 'stat' && (
            <>
              <label htmlFor={id('unit')}>Unit (optional)</label>
              <input
                id={id('unit')}
                maxLength={20}
                value={o.unit ?? ''}
                onChange={(e) => setOptions({ unit: e.target.value || undefined })}
              />
            </>
          )}
          <ClickSettings widget={w} parameters={parameters} onChange={onChange} id={id} />
        </>
      )}
      <div className="actions">
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

/** The parameters a click may set: a time range takes a range, not a clicked value. */
const settable = (parameters: readonly ApiDashboardParameter[]) => parameters.filter((p) => p.type !== 'time_range');

/**
 * "When a value is clicked": nothing, set one of the dashboard's parameters to it (cross-filtering), or open a link
 * made from it (drill-through); and which column the value comes from.
 */
function ClickSettings({
  widget: w,
  parameters,
  onChange,
  id,
}: {
  widget: ApiWidget;
  parameters: readonly ApiDashboardParameter[];
  onChange: (w: ApiWidget) => void;
  id: (field: string) => string;
}) {
  const click = w.click;
  const kind = click?.link !== undefined ? 'link' : click?.setParameter !== undefined ? 'filter' : '';
  const choices = settable(parameters);
  const set = (next: ApiWidget['click']) => {
    const { click: _old, ...rest } = w;
    onChange(next ? { ...rest, click: next } : rest);
  };
  const column = click?.column !== undefined ? { column: click.column } : {};
  // Said beside the field while typed; the service refuses such a link when the dashboard is saved anyway.
  const link = click?.link ?? '';
  const problem =
    kind !== 'link' || link === ''
      ? ''
      : !link.includes('{value}')
        ? 'The link needs {value} where the clicked value goes.'
        : linkFor(link, 'x') === undefined
          ? 'Only an http(s) address or a path of this console (starting with one /) can be opened.'
          : '';
  return (
    <fieldset className="click-settings">
      <legend>When a value is clicked</legend>
      <label htmlFor={id('click')}>Action</label>
      <select
        id={id('click')}
        value={kind}
        aria-describedby={choices.length === 0 ? id('click-hint') : undefined}
        onChange={(e) => {
          const next = e.target.value;
          if (next === 'filter') set({ setParameter: choices[0]!.name, ...column });
          else if (next === 'link') set({ link: '', ...column });
          else set(undefined);
        }}
      >
        <option value="">Nothing</option>
        <option value="filter" disabled={choices.length === 0}>
          Filter the dashboard
        </option>
        <option value="link">Open a link</option>
      </select>
      {choices.length === 0 && (
        <p id={id('click-hint')} className="hint">
          To filter by a click, add a text, choice or query parameter in Settings first.
        </p>
      )}
      {kind === 'filter' && (
        <>
          <label htmlFor={id('click-param')}>Parameter to set</label>
          <select
            id={id('click-param')}
            value={click?.setParameter ?? ''}
            onChange={(e) => set({ setParameter: e.target.value, ...column })}
          >
            {/* A parameter renamed or removed since: shown, so the save's refusal has something to point at. */}
            {!choices.some((p) => p.name === click?.setParameter) && (
              <option value={click?.setParameter ?? ''}>{click?.setParameter} (no such parameter)</option>
            )}
            {choices.map((p) => (
              <option key={p.name} value={p.name}>
                {p.label ? `${p.label} (${p.name})` : p.name}
              </option>
            ))}
          </select>
        </>
      )}
      {kind === 'link' && (
        <>
          <label htmlFor={id('click-link')}>Link</label>
          <input
            id={id('click-link')}
            maxLength={2000}
            value={link}
            aria-describedby={`${id('click-link-hint')} ${id('click-link-problem')}`}
            aria-invalid={problem ? true : undefined}
            onChange={(e) => set({ link: e.target.value, ...column })}
          />
          <p id={id('click-link-hint')} className="hint">
            An http(s) address or a path of this console, with {'{value}'} where the clicked value goes (URL-encoded),
            such as https://crm.example.com/regions/{'{value}'}.
          </p>
          <p id={id('click-link-problem')} className="error">
            {problem}
          </p>
        </>
      )}
      {kind !== '' && (
        <>
          <label htmlFor={id('click-column')}>Column of the value (optional)</label>
          <input
            id={id('click-column')}
            maxLength={200}
            value={click?.column ?? ''}
            aria-describedby={id('click-column-hint')}
            onChange={(e) => {
              const { column: _c, ...rest } = click ?? {};
              set(e.target.value ? { ...rest, column: e.target.value } : rest);
            }}
          />
          <p id={id('click-column-hint')} className="hint">
            Empty: {w.type === 'table' ? 'the first column' : 'the category column'}.
          </p>
        </>
      )}
    </fieldset>
  );
}
