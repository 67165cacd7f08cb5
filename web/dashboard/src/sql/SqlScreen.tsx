import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiQueryResult, ApiSavedQuery, ApiUser } from '../api/types.ts';
import { mayWriteSql, SQL_WRITERS } from '../app/roles.ts';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { dataSourcesQuery } from '../data/queries.ts';
import { Editor } from './Editor.tsx';
import { parameterNames } from './parameters.ts';
import { ResultTable } from './ResultTable.tsx';
import { useSourceTables } from './useSourceTables.ts';

/** The SQL editor (loaded on demand): pick a source, write SQL with :parameters, run, page through rows, save. */
export default function SqlScreen({ me }: { me: ApiUser }) {
  useScreen('SQL editor');
  const client = useQueryClient();
  const list = useQuery(dataSourcesQuery());
  const sources = list.data;
  // The source chosen; until one is, the first the person may write SQL on.
  const [chosen, setChosen] = useState<number>();
  const sourceId = chosen ?? sources?.find((s) => mayWriteSql(me, s))?.id;
  const [text, setText] = useState('SELECT 1 AS one');
  const [values, setValues] = useState<Record<string, string>>({});
  const [saveName, setSaveName] = useState('');
  const params = useMemo(() => parameterNames(text), [text]);
  const source = sources?.find((s) => s.id === sourceId);
  const tables = useSourceTables(sourceId);

  // Running SQL is an action, not a read to cache or repeat: the statement may write, on a source that allows it.
  const run = useMutation({
    mutationFn: async (body: { dataSourceId: number; query: string; params: Record<string, string> }) =>
      (await api<ApiQueryResult>('POST', '/query', { body: { ...body, maxRows: 1000 } })).data,
  });
  const save = useMutation({
    mutationFn: async (body: { name: string; dataSourceId: number; query: string }) =>
      (await api<ApiSavedQuery>('POST', '/queries', { body })).data,
    onSuccess: () => client.invalidateQueries({ queryKey: keys.savedQueries.all }),
  });
  const result = run.data;
  const status = run.isPending ? 'Running…' : result ? countOf(result) : '';
  // The alert says the last action's refusal (a run's or a save's), else why the sources could not be loaded.
  const failed = (save.submittedAt > run.submittedAt ? save.error : run.error) ?? list.error;
  const error = failed
    ? messageOf(failed, failed === list.error ? 'the data sources could not be loaded' : undefined)
    : '';

  const start = () => {
    if (!sourceId || run.isPending) return;
    run.mutate({
      dataSourceId: sourceId,
      query: text,
      params: Object.fromEntries(params.map((p) => [p, values[p] ?? ''])),
    });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    start();
  };
  const onSave = (e: FormEvent) => {
    e.preventDefault();
    if (sourceId) save.mutate({ name: saveName, dataSourceId: sourceId, query: text });
  };

  if (sources && sources.length === 0)
    return (
      <>
        <h1>SQL editor</h1>
        <p>There is no data source to query yet.</p>
      </>
    );
  // The form opens on a source, so it waits for the list (a failure to read it is said in the form's alert).
  if (list.isPending)
    return (
      <>
        <h1>SQL editor</h1>
        <p role="status">Loading the data sources…</p>
      </>
    );
  return (
    <>
      <h1>SQL editor</h1>
      <form onSubmit={onSubmit} className="sql">
        <label htmlFor="sql-source">Data source</label>
        <select id="sql-source" value={sourceId ?? ''} onChange={(e) => setChosen(Number(e.target.value))}>
          {sources?.map((s) => (
            <option key={s.id} value={s.id} disabled={!mayWriteSql(me, s)}>
              {mayWriteSql(me, s) ? s.name : `${s.name} (SQL by ${SQL_WRITERS[s.sqlRole]})`}
            </option>
          ))}
        </select>
        <p className="label" aria-hidden="true">
          SQL <span className="hint">(Ctrl+Enter or Cmd+Enter runs; Tab moves on after Escape)</span>
        </p>
        <Editor
          value={text}
          onChange={setText}
          onRun={start}
          dialect={source?.type ?? 'postgres'}
          tables={tables}
          label="SQL (Ctrl+Enter or Cmd+Enter runs)"
        />
        {params.length > 0 && (
          <fieldset>
            <legend>Parameters</legend>
            {params.map((p) => (
              <div key={p} className="param">
                <label htmlFor={`param-${p}`}>{p}</label>
                <input
                  id={`param-${p}`}
                  value={values[p] ?? ''}
                  onChange={(e) => setValues({ ...values, [p]: e.target.value })}
                />
              </div>
            ))}
          </fieldset>
        )}
        <div className="actions">
          <button type="submit" disabled={run.isPending || !sourceId}>
            Run
          </button>
        </div>
      </form>
      <p role="status" className="status">
        {status}
      </p>
      <div role="alert" className="error">
        {error}
      </div>
      {result && <ResultTable result={result} title={`${source?.name ?? 'query'} results`} />}
      <form onSubmit={onSave} className="form">
        <h2>Save as a query</h2>
        <label htmlFor="save-name">Query name</label>
        <input id="save-name" required maxLength={200} value={saveName} onChange={(e) => setSaveName(e.target.value)} />
        <button type="submit" className="secondary">
          Save query
        </button>
        <p role="status" className="status">
          {save.data ? `Saved as "${save.data.name}".` : ''}
        </p>
      </form>
    </>
  );
}

/** The one place the count is given: the results below carry no count of their own. */
function countOf(r: ApiQueryResult): string {
  const count = `${r.rowCount} ${r.rowCount === 1 ? 'row' : 'rows'} in ${Math.round(r.executionTimeMs)} ms.`;
  return r.truncated ? `${count} The service stopped reading there; more rows exist.` : count;
}
