import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, api, get } from '../api/client.ts';
import type { ApiDataSource, ApiQueryResult, ApiSavedQuery, ApiUser } from '../api/types.ts';
import { mayWriteSql, SQL_WRITERS } from '../app/roles.ts';
import { useScreen } from '../app/useTitle.ts';
import { Editor } from './Editor.tsx';
import { parameterNames } from './parameters.ts';
import { ResultTable } from './ResultTable.tsx';
import { useSourceTables } from './useSourceTables.ts';

/** The SQL editor (loaded on demand): pick a source, write SQL with :parameters, run, page through rows, save. */
export default function SqlScreen({ me }: { me: ApiUser }) {
  useScreen('SQL editor');
  const [sources, setSources] = useState<ApiDataSource[]>();
  const [sourceId, setSourceId] = useState<number>();
  const [text, setText] = useState('SELECT 1 AS one');
  const [values, setValues] = useState<Record<string, string>>({});
  const [result, setResult] = useState<ApiQueryResult>();
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [running, setRunning] = useState(false);
  const [saveName, setSaveName] = useState('');
  const [saveStatus, setSaveStatus] = useState('');
  const params = useMemo(() => parameterNames(text), [text]);
  const source = sources?.find((s) => s.id === sourceId);
  const tables = useSourceTables(sourceId);

  useEffect(() => {
    get<{ dataSources: ApiDataSource[] }>('/datasources').then(
      (r) => {
        setSources(r.dataSources);
        setSourceId(r.dataSources.find((s) => mayWriteSql(me, s))?.id);
      },
      () => setError('the data sources could not be loaded'),
    );
  }, []);

  const run = async () => {
    if (!sourceId || running) return;
    setRunning(true);
    setError('');
    setStatus('Running…');
    try {
      const body = {
        dataSourceId: sourceId,
        query: text,
        params: Object.fromEntries(params.map((p) => [p, values[p] ?? ''])),
        maxRows: 1000,
      };
      const r = (await api<ApiQueryResult>('POST', '/query', { body })).data;
      setResult(r);
      // The one place the count is given: the results below carry no count of their own.
      const count = `${r.rowCount} ${r.rowCount === 1 ? 'row' : 'rows'} in ${Math.round(r.executionTimeMs)} ms.`;
      setStatus(r.truncated ? `${count} The service stopped reading there; more rows exist.` : count);
    } catch (err) {
      setResult(undefined);
      setStatus('');
      setError(err instanceof ApiError ? err.message : 'the service could not be reached');
    } finally {
      setRunning(false);
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void run();
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!sourceId) return;
    setError('');
    setSaveStatus('');
    try {
      const saved = (
        await api<ApiSavedQuery>('POST', '/queries', { body: { name: saveName, dataSourceId: sourceId, query: text } })
      ).data;
      setSaveStatus(`Saved as "${saved.name}".`);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'the service could not be reached');
    }
  };

  if (sources && sources.length === 0)
    return (
      <>
        <h1>SQL editor</h1>
        <p>There is no data source to query yet.</p>
      </>
    );
  return (
    <>
      <h1>SQL editor</h1>
      <form onSubmit={onSubmit} className="sql">
        <label htmlFor="sql-source">Data source</label>
        <select id="sql-source" value={sourceId ?? ''} onChange={(e) => setSourceId(Number(e.target.value))}>
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
          onRun={() => void run()}
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
          <button type="submit" disabled={running || !sourceId}>
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
      <form onSubmit={save} className="form">
        <h2>Save as a query</h2>
        <label htmlFor="save-name">Query name</label>
        <input id="save-name" required maxLength={200} value={saveName} onChange={(e) => setSaveName(e.target.value)} />
        <button type="submit" className="secondary">
          Save query
        </button>
        <p role="status" className="status">
          {saveStatus}
        </p>
      </form>
    </>
  );
}
