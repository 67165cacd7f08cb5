import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client.ts';
import type { ApiDataSource, ApiDataSourceDetail, ApiUser } from '../api/types.ts';
import { atLeast, SQL_WRITERS } from '../app/roles.ts';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { dataSourceQuery, dataSourcesQuery } from '../data/queries.ts';
import { DataSourceForm } from './DataSourceForm.tsx';
import { SchemaBrowser } from './SchemaBrowser.tsx';
import { WideTable } from '../app/WideTable.tsx';
import { whenOrNever } from '../app/datetime.ts';
import { useConfirm } from '../app/useConfirm.tsx';

type Panel =
  | { kind: 'none' }
  | { kind: 'add' }
  | { kind: 'edit'; source: ApiDataSourceDetail }
  | { kind: 'schema'; source: ApiDataSource };

/** The tenant's data sources: admins add, test, edit and delete them; editors browse their schema. */
export default function DataSourcesScreen({ me }: { me: ApiUser }) {
  useScreen('Data sources');
  const client = useQueryClient();
  const list = useQuery(dataSourcesQuery());
  const sources = list.data;
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [message, setMessage] = useState('');
  const admin = atLeast(me, 'admin');

  // Test, edit and delete: one action at a time, its answer in the status line, its refusal in the alert.
  const action = useMutation({
    mutationFn: (what: () => Promise<string>) => what(),
    onMutate: () => setMessage(''),
    onSuccess: (said) => setMessage(said),
  });
  const test = (s: ApiDataSource) =>
    action.mutate(async () => {
      const r = (
        await api<{ success: boolean; durationMs: number; error?: string }>('POST', `/datasources/${s.id}/test`)
      ).data;
      // The source's last connection changed.
      void client.invalidateQueries({ queryKey: keys.dataSources.all });
      return r.success
        ? `${s.name}: connection succeeded in ${r.durationMs} ms.`
        : `${s.name}: connection failed: ${r.error ?? 'unknown error'}`;
    });
  const edit = (s: ApiDataSource) =>
    action.mutate(async () => {
      setPanel({ kind: 'edit', source: await client.fetchQuery(dataSourceQuery(s.id)) });
      return '';
    });
  const [confirmFirst, confirming] = useConfirm();
  const remove = async (s: ApiDataSource) => {
    const yes = await confirmFirst({
      title: `Delete the data source ${s.name}?`,
      body: 'Its saved queries and the alert rules watching them are deleted with it; widgets that query it stop working.',
      confirm: 'Delete data source',
    });
    if (!yes) return;
    action.mutate(async () => {
      await api('DELETE', `/datasources/${s.id}`);
      // Its saved queries went with it.
      client.removeQueries({ queryKey: keys.dataSources.one(s.id) });
      await Promise.all([
        client.invalidateQueries({ queryKey: keys.dataSources.all }),
        client.invalidateQueries({ queryKey: keys.savedQueries.all }),
      ]);
      return `${s.name} deleted.`;
    });
  };
  const error = action.error
    ? messageOf(action.error)
    : list.error
      ? messageOf(list.error, 'the data sources could not be loaded')
      : '';

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
                  <td>{whenOrNever(s.lastConnectedAt)}</td>
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
      {confirming}
    </>
  );
}
