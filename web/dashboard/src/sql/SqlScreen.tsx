import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiHistoryItem, ApiQueryResult, ApiSavedQuery, ApiUser } from '../api/types.ts';
import { mayWriteSql, SQL_WRITERS } from '../app/roles.ts';
import { Link } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { dataSourcesQuery } from '../data/queries.ts';
import { savedQueryQuery, updateSavedQuery } from '../queries/api.ts';
import { savedQuerySaved } from '../queries/cache.ts';
import { ChartFromResult } from './ChartFromResult.tsx';
import { Editor } from './Editor.tsx';
import { HistoryPanel } from './HistoryPanel.tsx';
import { parameterNames } from './parameters.ts';
import { ResultTable } from './ResultTable.tsx';
import { useSourceTables } from './useSourceTables.ts';
import './workflow.css';

/** `?query=<id>`: the saved query the screen opens on (the saved queries' list links here). */
const openedId = () => {
  const id = Number(new URLSearchParams(location.search).get('query'));
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
};

/**
 * The SQL editor (loaded on demand): pick a source, write SQL with :parameters, run, page through rows; save it as a
 * query or save changes to the one opened; open a recent run again; make a chart of the result for a dashboard.
 */
export default function SqlScreen({ me }: { me: ApiUser }) {
  useScreen('SQL editor');
  const client = useQueryClient();
  const list = useQuery(dataSourcesQuery());
  const sources = list.data;
  const [opening] = useState(openedId);
  const openedQuery = useQuery({ ...savedQueryQuery(opening ?? 0), enabled: opening !== undefined });
  // The saved query being edited (opened from the list, or just saved), if any.
  const [editing, setEditing] = useState<ApiSavedQuery>();
  // The source chosen; until one is, the first the person may write SQL on.
  const [chosen, setChosen] = useState<number>();
  const sourceId = chosen ?? sources?.find((s) => mayWriteSql(me, s))?.id;
  const [text, setText] = useState('SELECT 1 AS one');
  // The editor owns its text once made: opening another query makes a new one (a new `doc`).
  const [doc, setDoc] = useState({ text: 'SELECT 1 AS one', version: 0 });
  const [values, setValues] = useState<Record<string, string>>({});
  const [saveName, setSaveName] = useState('');
  const params = useMemo(() => parameterNames(text), [text]);
  const source = sources?.find((s) => s.id === sourceId);
  const tables = useSourceTables(sourceId);
  const [said, setSaid] = useState('');

  const load = (next: { text: string; dataSourceId: number; values?: Record<string, string> }) => {
    setChosen(next.dataSourceId);
    setText(next.text);
    setDoc((d) => ({ text: next.text, version: d.version + 1 }));
    setValues(next.values ?? {});
    run.reset();
  };
  const opened = openedQuery.data;
  // Opened once: a later refetch of the query (after saving changes to it) must not replace the text being edited.
  const openedOnce = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: opens the saved query once, when it arrives (load is remade each render)
  useEffect(() => {
    if (!opened || openedOnce.current) return;
    openedOnce.current = true;
    setEditing(opened);
    load({ text: opened.query, dataSourceId: opened.dataSourceId });
    setSaid(`Opened "${opened.name}".`);
  }, [opened]);

  // Running SQL is an action, not a read to cache or repeat: the statement may write, on a source that allows it.
  const run = useMutation({
    mutationFn: async (body: { dataSourceId: number; query: string; params: Record<string, string> }) =>
      (await api<ApiQueryResult>('POST', '/query', { body: { ...body, maxRows: 1000, history: true } })).data,
    onSettled: () => client.invalidateQueries({ queryKey: ['history'] }),
  });
  const save = useMutation({
    mutationFn: async (body: { name: string; dataSourceId: number; query: string }) =>
      (await api<ApiSavedQuery>('POST', '/queries', { body })).data,
    onSuccess: (q) => {
      setEditing(q);
      setSaid(`Saved as "${q.name}".`);
      return savedQuerySaved(client, q);
    },
  });
  const update = useMutation({
    mutationFn: (q: ApiSavedQuery) => updateSavedQuery(q.id, { query: text, dataSourceId: sourceId! }),
    onSuccess: (q) => {
      setEditing(q);
      setSaid(`Saved the changes to "${q.name}".`);
      return savedQuerySaved(client, q);
    },
  });
  const result = run.data;
  const status = run.isPending ? 'Running…' : result ? countOf(result) : '';
  // The alert says the last action's refusal (a run's or a save's), else why the sources could not be loaded.
  const last = [run, save, update].reduce((a, b) => (b.submittedAt > a.submittedAt ? b : a));
  const failed = last.error ?? openedQuery.error ?? list.error;
  const error = failed
    ? messageOf(
        failed,
        failed === list.error
          ? 'the data sources could not be loaded'
          : failed === openedQuery.error
            ? 'the saved query could not be opened'
            : undefined,
      )
    : '';
  const currentValues = Object.fromEntries(params.map((p) => [p, values[p] ?? '']));

  const start = () => {
    if (!sourceId || run.isPending) return;
    setSaid('');
    run.mutate({ dataSourceId: sourceId, query: text, params: currentValues });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    start();
  };
  const onSave = (e: FormEvent) => {
    e.preventDefault();
    if (sourceId) save.mutate({ name: saveName, dataSourceId: sourceId, query: text });
  };
  const reopen = (r: ApiHistoryItem) => {
    setEditing(undefined);
    load({
      text: r.query,
      dataSourceId: r.dataSourceId,
      values: Object.fromEntries(Object.entries(r.params).map(([k, v]) => [k, v === null ? '' : String(v)])),
    });
    setSaid('Opened a recent run in the editor.');
  };

  if (sources && sources.length === 0)
    return (
      <>
        <h1>SQL editor</h1>
        <p>There is no data source to query yet.</p>
      </>
    );
  // The form opens on a source, so it waits for the list (a failure to read it is said in the form's alert).
  if (list.isPending || (opening !== undefined && openedQuery.isPending))
    return (
      <>
        <h1>SQL editor</h1>
        <p role="status">{list.isPending ? 'Loading the data sources…' : 'Opening the saved query…'}</p>
      </>
    );
  const changed = editing !== undefined && (editing.query !== text || editing.dataSourceId !== sourceId);
  return (
    <>
      <h1>SQL editor</h1>
      {editing && (
        <p className="editing-saved">
          Editing the saved query <strong>{editing.name}</strong>
          {changed ? ' (changed, not saved)' : ''}. <Link to="savedQueries">All saved queries</Link>
        </p>
      )}
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
          key={doc.version}
          value={doc.text}
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
          {editing && (
            <button
              type="button"
              className="secondary"
              disabled={update.isPending || !changed}
              onClick={() => update.mutate(editing)}
            >
              Save changes<span className="visually-hidden"> to {editing.name}</span>
            </button>
          )}
        </div>
      </form>
      <p role="status" className="status">
        {status}
      </p>
      {/* Saving and opening say so in a line of their own: the count of the results still shown stays. */}
      <p role="status" className="status">
        {said}
      </p>
      <div role="alert" className="error">
        {error}
      </div>
      {result && <ResultTable result={result} title={`${source?.name ?? 'query'} results`} />}
      {result && result.columns.length > 0 && sourceId !== undefined && (
        <ChartFromResult result={result} draft={{ dataSourceId: sourceId, query: text, values: currentValues }} />
      )}
      <form onSubmit={onSave} className="form">
        <h2>{editing ? 'Save as a new query' : 'Save as a query'}</h2>
        <label htmlFor="save-name">Query name</label>
        <input id="save-name" required maxLength={200} value={saveName} onChange={(e) => setSaveName(e.target.value)} />
        <button type="submit" className="secondary">
          Save query
        </button>
      </form>
      <HistoryPanel sources={sources ?? []} onOpen={reopen} />
    </>
  );
}

/** The one place the count is given: the results below carry no count of their own. */
function countOf(r: ApiQueryResult): string {
  const count = `${r.rowCount} ${r.rowCount === 1 ? 'row' : 'rows'} in ${Math.round(r.executionTimeMs)} ms.`;
  return r.truncated ? `${count} The service stopped reading there; more rows exist.` : count;
}
