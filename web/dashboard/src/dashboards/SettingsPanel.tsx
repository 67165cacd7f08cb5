import type { ApiDashboardParameter, ApiDataSource, ApiUser } from '../api/types.ts';
import { mayWriteSql } from '../app/roles.ts';
import { WidgetSql } from './WidgetSql.tsx';
import { ListInput } from './ListInput.tsx';
import { TagInput } from './TagInput.tsx';
import { useFocusOnOpen } from './useFocusOnOpen.ts';
import { TIME_RANGES } from './parameters.ts';

interface Props {
  title: string;
  description: string;
  tags: readonly string[];
  onTags: (t: string[]) => void;
  parameters: readonly ApiDashboardParameter[];
  onTitle: (t: string) => void;
  onDescription: (d: string) => void;
  onParameters: (p: ApiDashboardParameter[]) => void;
  me: ApiUser;
  sources: readonly ApiDataSource[];
}

/** The draft's title, description, tags and parameters (a time range, a text or a choice, each passed to every query). */
export function SettingsPanel({
  title,
  description,
  tags,
  onTags,
  parameters,
  onTitle,
  onDescription,
  onParameters,
  me,
  sources,
}: Props) {
  const writable = sources.filter((s) => mayWriteSql(me, s));
  const heading = useFocusOnOpen('settings');
  const set = (i: number, p: ApiDashboardParameter) => onParameters(parameters.map((x, j) => (j === i ? p : x)));
  const add = () => {
    const names = new Set(parameters.map((p) => p.name));
    let n = 1;
    while (names.has(`param${n}`)) n++;
    onParameters([...parameters, { name: `param${n}`, type: 'text' }]);
  };
  return (
    <section className="panel form" aria-labelledby="settings-h">
      <h2 id="settings-h" ref={heading} tabIndex={-1}>
        Dashboard settings
      </h2>
      <label htmlFor="set-title">Title</label>
      <input id="set-title" required maxLength={200} value={title} onChange={(e) => onTitle(e.target.value)} />
      <label htmlFor="set-description">Description</label>
      <textarea
        id="set-description"
        rows={2}
        maxLength={2000}
        value={description}
        onChange={(e) => onDescription(e.target.value)}
      />
      <TagInput tags={tags} onTags={onTags} />
      <h3>Parameters</h3>
      {parameters.length === 0 && (
        <p className="hint">None. A parameter is passed to every widget's query that names it.</p>
      )}
      {parameters.map((p, i) => {
        const id = (f: string) => `p${i}-${f}`;
        return (
          <fieldset key={i} className="param-row">
            <legend>Parameter {i + 1}</legend>
            <div className="field">
              <label htmlFor={id('name')}>Name</label>
              <input
                id={id('name')}
                required
                pattern="[A-Za-z_][A-Za-z0-9_]*"
                maxLength={60}
                value={p.name}
                onChange={(e) => set(i, { ...p, name: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={id('type')}>Kind</label>
              <select
                id={id('type')}
                value={p.type}
                onChange={(e) => {
                  const type = e.target.value as ApiDashboardParameter['type'];
                  const { choices: _c, default: _d, query: _q, dataSourceId: _s, ...rest } = p;
                  if (type === 'choice') set(i, { ...rest, type, choices: ['a', 'b'] });
                  else if (type === 'query' && writable[0])
                    set(i, { ...rest, type, dataSourceId: writable[0].id, query: 'SELECT 1 AS choice' });
                  else set(i, { ...rest, type });
                }}
              >
                <option value="time_range">Time range</option>
                <option value="text">Text</option>
                <option value="choice">Choice</option>
                <option value="query" disabled={writable.length === 0}>
                  Choices from a query
                </option>
              </select>
            </div>
            <div className="field">
              <label htmlFor={id('label')}>Label</label>
              <input
                id={id('label')}
                maxLength={100}
                value={p.label ?? ''}
                onChange={(e) => {
                  const { label: _l, ...rest } = p;
                  set(i, e.target.value ? { ...rest, label: e.target.value } : rest);
                }}
              />
            </div>
            {p.type === 'choice' && (
              <div className="field">
                <label htmlFor={id('choices')}>Choices (comma-separated)</label>
                <ListInput
                  id={id('choices')}
                  value={p.choices ?? []}
                  onList={(choices) => {
                    const { default: d, ...rest } = p;
                    set(i, { ...rest, choices, ...(d !== undefined && choices.includes(d) ? { default: d } : {}) });
                  }}
                />
              </div>
            )}
            {p.type === 'query' && (
              <div className="field param-query">
                <label htmlFor={id('source')}>Data source</label>
                <select
                  id={id('source')}
                  value={p.dataSourceId ?? ''}
                  onChange={(e) => set(i, { ...p, dataSourceId: Number(e.target.value) })}
                >
                  {sources.map((s) => (
                    <option key={s.id} value={s.id} disabled={!mayWriteSql(me, s)}>
                      {s.name}
                    </option>
                  ))}
                </select>
                <p className="label" aria-hidden="true">
                  SQL
                </p>
                <WidgetSql
                  widgetId={`param-${i}`}
                  query={p.query ?? ''}
                  sourceId={p.dataSourceId}
                  dialect={sources.find((s) => s.id === p.dataSourceId)?.type ?? 'postgres'}
                  locked={false}
                  label={`SQL of parameter ${p.name}`}
                  onChange={(query) => set(i, { ...p, query })}
                />
                <p className="hint">
                  The first column of its rows are the choices. It may use the parameters above it as :name: the choices
                  follow their values.
                </p>
              </div>
            )}
            <div className="field">
              <label htmlFor={id('default')}>Default</label>
              {p.type === 'time_range' ? (
                <select
                  id={id('default')}
                  value={p.default ?? '24h'}
                  onChange={(e) => set(i, { ...p, default: e.target.value })}
                >
                  {TIME_RANGES.map((r) => (
                    <option key={r.value} value={r.value}>
                      {r.label}
                    </option>
                  ))}
                </select>
              ) : p.type === 'choice' ? (
                <select
                  id={id('default')}
                  value={p.default ?? p.choices?.[0] ?? ''}
                  onChange={(e) => set(i, { ...p, default: e.target.value })}
                >
                  {(p.choices ?? []).map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={id('default')}
                  maxLength={1000}
                  value={p.default ?? ''}
                  onChange={(e) => {
                    const { default: _d, ...rest } = p;
                    set(i, e.target.value ? { ...rest, default: e.target.value } : rest);
                  }}
                />
              )}
            </div>
            <button
              type="button"
              className="danger small"
              onClick={() => onParameters(parameters.filter((_, j) => j !== i))}
            >
              Remove parameter {p.name}
            </button>
          </fieldset>
        );
      })}
      <div className="actions">
        <button type="button" className="secondary" onClick={add}>
          Add parameter
        </button>
      </div>
    </section>
  );
}
