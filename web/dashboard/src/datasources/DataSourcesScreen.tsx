import { useCallback, useEffect, useState } from 'react';
import { ApiError, api, get } from '../api/client.ts';
import type { ApiDataSource, ApiDataSourceDetail, ApiUser } from '../api/types.ts';
import { atLeast, SQL_WRITERS } from '../app/roles.ts';
import { useScreen } from '../app/useTitle.ts';
import { DataSourceForm } from './DataSourceForm.tsx';
import { SchemaBrowser } from './SchemaBrowser.tsx';
import { WideTable } from '../app/WideTable.tsx';

type Panel =
  | { kind: 'none' }
  | { kind: 'add' }
  | { kind: 'edit'; source: ApiDataSourceDetail }
  | { kind: 'schema'; source: ApiDataSource };

/** The tenant's data sources: admins add, test, edit and delete them; editors browse their schema. */
export function DataSourcesScreen({ me }: { me: ApiUser }) {
  useScreen('Data sources');
  const [sources, setSources] = useState<ApiDataSource[]>();
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [message, setMessage] = useState('');
  const [error, setError] = useState('');
  const admin = atLeast(me, 'admin');

  const load = useCallback(async () => {
    try {
      setSources((await get<{ dataSources: ApiDataSource[] }>('/datasources')).dataSources);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'the data sources could not be loaded');
    }
  }, []);
  useEffect(() => void load(), [load]);

  const act = async (what: () => Promise<string>) => {
    setError('');
    setMessage('');
    try {
      setMessage(await what());
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'the service could not be reached');
    }
  };
  const test = (s: ApiDataSource) =>
    act(async () => {
      const r = (
        await api<{ success: boolean; durationMs: number; error?: string }>('POST', `/datasources/${s.id}/test`)
      ).data;
      void load();
      return r.success
        ? `${s.name}: connection succeeded in ${r.durationMs} ms.`
        : `${s.name}: connection failed: ${r.error ?? 'unknown error'}`;
    });
  const edit = (s: ApiDataSource) =>
    act(async () => {
      setPanel({ kind: 'edit', source: await get<ApiDataSourceDetail>(`/datasources/${s.id}`) });
      return '';
    });
  const remove = (s: ApiDataSource) =>
    act(async () => {
      if (!confirm(`Delete the data source ${s.name} and its saved queries?`)) return '';
      await api('DELETE', `/datasources/${s.id}`);
      await load();
      return `${s.name} deleted.`;
    });

  return (
    <>
      <h1>Data sources</h1>
      <p role="status" className="status">
        {message}
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {admin && panel.kind === 'none' && (
        <button
          type="button"
          onClick={() => {
            setMessage('');
            setPanel({ kind: 'add' });
          }}
        >
          Add data source
        </button>
      )}
      {(panel.kind === 'add' || panel.kind === 'edit') && (
        <DataSourceForm
          editing={panel.kind === 'edit' ? panel.source : undefined}
          onCancel={() => setPanel({ kind: 'none' })}
          onSaved={(m) => {
            setPanel({ kind: 'none' });
            setMessage(m);
            void load();
          }}
        />
      )}
      {sources && sources.length === 0 && (
        <p>No data sources yet.{admin ? ' Add one to start querying.' : ' Ask an admin to add one.'}</p>
      )}
      {sources && sources.length > 0 && (
        <WideTable label="Data sources">
          <table>
            <caption className="visually-hidden">Data sources</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Database</th>
                <th scope="col">Mode</th>
                <th scope="col">Last connected</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {sources.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{s.name}</th>
                  <td>{s.type === 'postgres' ? 'PostgreSQL' : 'MySQL'}</td>
                  <td>
                    {s.readOnly ? 'read-only' : 'read and write'}
                    {s.active ? '' : ', inactive'}
                    {s.sqlRole !== 'editor' ? `; SQL by ${SQL_WRITERS[s.sqlRole]}` : ''}
                  </td>
                  <td>{s.lastConnectedAt ? new Date(s.lastConnectedAt).toLocaleString() : 'never'}</td>
                  <td className="actions">
                    {admin && (
                      <button type="button" onClick={() => test(s)} aria-label={`Test ${s.name}`}>
                        Test
                      </button>
                    )}
                    {atLeast(me, 'editor') && (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => setPanel({ kind: 'schema', source: s })}
                        aria-label={`Schema of ${s.name}`}
                      >
                        Schema
                      </button>
                    )}
                    {admin && (
                      <button type="button" className="secondary" onClick={() => edit(s)} aria-label={`Edit ${s.name}`}>
                        Edit
                      </button>
                    )}
                    {admin && (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => remove(s)}
                        aria-label={`Delete ${s.name}`}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {panel.kind === 'schema' && <SchemaBrowser id={panel.source.id} name={panel.source.name} />}
    </>
  );
}
