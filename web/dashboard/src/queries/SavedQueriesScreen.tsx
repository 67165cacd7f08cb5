import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApiSavedQuery, ApiUser } from '../api/types.ts';
import { Pager } from '../admin/Pager.tsx';
import { ConfirmDialog, DialogEnd, ModalDialog } from '../app/ModalDialog.tsx';
import { mayWriteSql } from '../app/roles.ts';
import { Link } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { WideTable } from '../app/WideTable.tsx';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { useCursorPages } from '../data/paging.ts';
import { dataSourcesQuery } from '../data/queries.ts';
import { deleteSavedQuery, updateSavedQuery } from './api.ts';
import { savedQueryDeleted, savedQuerySaved } from './cache.ts';
import { formatDateTime } from '../app/datetime.ts';

/**
 * The tenant's saved queries: found by words in their name, description or SQL, each saying who changed it last and
 * when. Someone who may write SQL on its source opens it in the SQL editor, renames or deletes it.
 */
export default function SavedQueriesScreen({ me }: { me: ApiUser }) {
  useScreen('Saved queries');
  const client = useQueryClient();
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const pages = useCursorPages<ApiSavedQuery>(keys.savedQueries.pages(), '/queries', { search }, 25);
  const sources = useQuery(dataSourcesQuery()).data;
  const [renaming, setRenaming] = useState<ApiSavedQuery>();
  const [deleting, setDeleting] = useState<ApiSavedQuery>();
  const [notice, setNotice] = useState('');
  const remove = useMutation({
    mutationFn: (q: ApiSavedQuery) => deleteSavedQuery(q.id),
    onSuccess: async (_, q) => {
      setDeleting(undefined);
      setNotice(`Deleted "${q.name}".`);
      await savedQueryDeleted(client, q.id);
    },
  });
  const sourceOf = (q: ApiSavedQuery) => sources?.find((s) => s.id === q.dataSourceId);
  const mayEdit = (q: ApiSavedQuery) => {
    const source = sourceOf(q);
    return source !== undefined && mayWriteSql(me, source);
  };
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setNotice('');
    setSearch(typed.trim());
  };
  const items = pages.items;

  return (
    <>
      <h1>Saved queries</h1>
      <search>
        <form className="toolbar" onSubmit={onSearch}>
          <div className="field">
            <label htmlFor="sq-search">Search names, descriptions and SQL</label>
            <input
              id="sq-search"
              type="search"
              maxLength={200}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
            />
          </div>
          <button type="submit" className="secondary">
            Search
          </button>
        </form>
      </search>
      <div role="alert" className="error">
        {pages.error ? messageOf(pages.error, 'the saved queries could not be loaded') : ''}
      </div>
      <p role="status" className="status">
        {notice && `${notice} `}
        {items &&
          (items.length === 0
            ? search
              ? `No saved query matches "${search}".`
              : 'No saved queries yet. Save one from the SQL editor.'
            : `Page ${pages.page}${search ? ` of the queries matching "${search}"` : ''}.`)}
      </p>
      {items && items.length > 0 && (
        <WideTable label="Saved queries">
          <table className="list">
            <caption className="visually-hidden">Saved queries</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Data source</th>
                <th scope="col">Last changed</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {items.map((q) => (
                <tr key={q.id}>
                  <td>
                    {mayEdit(q) ? (
                      <Link to="sql" search={{ query: String(q.id) }}>
                        {q.name}
                      </Link>
                    ) : (
                      q.name
                    )}
                    {q.description && <span className="hint block">{q.description}</span>}
                  </td>
                  <td>{sourceOf(q)?.name ?? `#${q.dataSourceId}`}</td>
                  <td>
                    {formatDateTime(q.updatedAt)}
                    <span className="hint block">by {q.updatedByName ?? 'a deleted user'}</span>
                  </td>
                  <td>
                    {mayEdit(q) && (
                      <span className="actions">
                        <button type="button" className="secondary small" onClick={() => setRenaming(q)}>
                          Rename<span className="visually-hidden"> {q.name}</span>
                        </button>
                        <button type="button" className="danger small" onClick={() => setDeleting(q)}>
                          Delete<span className="visually-hidden"> {q.name}</span>
                        </button>
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Saved query" />
      {renaming && (
        <RenameDialog
          query={renaming}
          onClose={() => setRenaming(undefined)}
          onRenamed={async (q) => {
            setRenaming(undefined);
            setNotice(`Renamed to "${q.name}".`);
            await savedQuerySaved(client, q);
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete "${deleting.name}"?`}
          confirm="Delete query"
          busy={remove.isPending}
          error={remove.error ? messageOf(remove.error) : undefined}
          onConfirm={() => remove.mutate(deleting)}
          onClose={() => {
            remove.reset();
            setDeleting(undefined);
          }}
          fallback={() => document.getElementById('sq-search')}
        >
          <p>Widgets that use this query will have nothing to draw. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function RenameDialog({
  query,
  onClose,
  onRenamed,
}: {
  query: ApiSavedQuery;
  onClose: () => void;
  onRenamed: (q: ApiSavedQuery) => void;
}) {
  const [name, setName] = useState(query.name);
  const rename = useMutation({ mutationFn: () => updateSavedQuery(query.id, { name }), onSuccess: onRenamed });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate();
  };
  return (
    <ModalDialog title={`Rename "${query.name}"`} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label htmlFor="sq-new-name">New name</label>
        <input
          id="sq-new-name"
          required
          maxLength={200}
          value={name}
          data-autofocus
          onChange={(e) => setName(e.target.value)}
        />
        <DialogEnd error={rename.error ? messageOf(rename.error) : undefined} onClose={onClose}>
          <button type="submit" disabled={rename.isPending}>
            Rename
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
