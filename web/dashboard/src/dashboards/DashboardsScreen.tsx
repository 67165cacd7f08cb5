import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApiUser } from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { Link, navigate } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { createDashboard, dashboardsQuery, titleSlug, type ListParams } from './api.ts';
import { FavouriteStar } from './FavouriteStar.tsx';
import { emptyDefinition } from './definition.ts';
import { WideTable } from '../app/WideTable.tsx';
import { Pager } from '../admin/Pager.tsx';
import { ImportForm } from './ImportForm.tsx';
import { formatDateTime } from '../app/datetime.ts';

const SORTS: { value: string; label: string; sort: ListParams['sort']; order: ListParams['order'] }[] = [
  { value: 'created_at-desc', label: 'Newest first', sort: 'created_at', order: 'desc' },
  { value: 'created_at-asc', label: 'Oldest first', sort: 'created_at', order: 'asc' },
  { value: 'updated_at-desc', label: 'Recently changed', sort: 'updated_at', order: 'desc' },
  { value: 'title-asc', label: 'Title A to Z', sort: 'title', order: 'asc' },
  { value: 'title-desc', label: 'Title Z to A', sort: 'title', order: 'desc' },
];
const PER_PAGE = 20;
/** The tag and favourites filters in words, for the count the status line reads out. */
const filtersSaid = (q: ListParams) =>
  `${q.tag ? ` tagged "${q.tag}"` : ''}${q.favourites ? ' among your favourites' : ''}`;

/** The tenant's dashboards: search, a tag, favourites only, sort and pages from the API (`{data, meta}`); editors create one here. */
export default function DashboardsScreen({ me }: { me: ApiUser }) {
  useScreen('Dashboards');
  const [search, setSearch] = useState('');
  const [tag, setTag] = useState('');
  const [query, setQuery] = useState<ListParams>({
    page: 1,
    perPage: PER_PAGE,
    search: '',
    tag: '',
    favourites: false,
    sort: 'created_at',
    order: 'desc',
  });
  // The page shown stays until the next one is there: a new search or page never blanks the table meanwhile.
  const page = useQuery({ ...dashboardsQuery(query), placeholderData: keepPreviousData });
  const list = page.data;
  const error = page.error ? messageOf(page.error, 'the dashboards could not be loaded') : '';
  const [opened, setOpened] = useState<'none' | 'create' | 'import'>('none');
  const [notice, setNotice] = useState('');

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setQuery({ ...query, search, tag: tag.trim(), page: 1 });
  };
  const sortValue = `${query.sort}-${query.order}`;
  const meta = list?.meta;

  return (
    <>
      <h1>Dashboards</h1>
      {atLeast(me, 'editor') &&
        (opened === 'create' ? (
          <CreateForm onCancel={() => setOpened('none')} />
        ) : opened === 'import' ? (
          <ImportForm
            onCancel={() => setOpened('none')}
            onImported={(said) => {
              setOpened('none');
              setNotice(said);
              setQuery({ ...query, page: 1 });
            }}
          />
        ) : (
          <p className="actions">
            <button
              type="button"
              onClick={() => {
                setNotice('');
                setOpened('create');
              }}
            >
              New dashboard
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setNotice('');
                setOpened('import');
              }}
            >
              Import
            </button>
          </p>
        ))}
      <search>
        <form className="toolbar" onSubmit={onSearch}>
          <div className="field">
            <label htmlFor="dash-search">Search titles and descriptions</label>
            <input
              id="dash-search"
              type="search"
              value={search}
              maxLength={200}
              onChange={(e) => setSearch(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="dash-tag">Tag</label>
            <input id="dash-tag" value={tag} maxLength={40} onChange={(e) => setTag(e.target.value)} />
          </div>
          <button type="submit" className="secondary">
            Search
          </button>
          <div className="check">
            <input
              id="dash-favourites"
              type="checkbox"
              checked={query.favourites}
              onChange={(e) => setQuery({ ...query, favourites: e.target.checked, page: 1 })}
            />
            <label htmlFor="dash-favourites">Favourites only</label>
          </div>
          <div className="field">
            <label htmlFor="dash-sort">Sort</label>
            <select
              id="dash-sort"
              value={sortValue}
              onChange={(e) => {
                const s = SORTS.find((x) => x.value === e.target.value)!;
                setQuery({ ...query, sort: s.sort, order: s.order, page: 1 });
              }}
            >
              {SORTS.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          </div>
        </form>
      </search>
      <div role="alert" className="error">
        {error}
      </div>
      <p role="status" className="status">
        {notice && `${notice} `}
        {meta &&
          (meta.total === 0
            ? query.search
              ? `No dashboard matches "${query.search}"${filtersSaid(query)}.`
              : query.tag || query.favourites
                ? `No dashboards${filtersSaid(query)}.`
                : 'No dashboards yet.'
            : `${meta.total} ${meta.total === 1 ? 'dashboard' : 'dashboards'}${query.search ? ` matching "${query.search}"` : ''}${filtersSaid(query)}.`)}
      </p>
      {list && list.data.length > 0 && (
        <WideTable label="Dashboards">
          <table className="list">
            <caption className="visually-hidden">
              Dashboards, {SORTS.find((s) => s.value === sortValue)?.label.toLowerCase()}
            </caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">
                  <span className="visually-hidden">Favourite</span>
                </th>
                <th scope="col">Tags</th>
                <th scope="col">Description</th>
                <th scope="col">Changed</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    <Link to="dashboard" params={{ id: d.id }}>
                      {d.title}
                    </Link>
                  </td>
                  <td>
                    <FavouriteStar id={d.id} title={d.title} on={d.favourite} onSaid={setNotice} />
                  </td>
                  <td>
                    {d.tags.length > 0 && (
                      <ul className="chips" aria-label={`Tags of ${d.title}`}>
                        {d.tags.map((t) => (
                          <li key={t} className="chip">
                            {t}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>{d.description ?? ''}</td>
                  <td>{formatDateTime(d.updatedAt)}</td>
                  <td>{d.version}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {meta && (
        <Pager
          label="Dashboard"
          pageCount={meta.totalPages}
          pages={{
            page: meta.page,
            hasPrevious: meta.page > 1,
            hasNext: meta.page < meta.totalPages,
            previous: () => setQuery({ ...query, page: meta.page - 1 }),
            next: () => setQuery({ ...query, page: meta.page + 1 }),
          }}
        />
      )}
    </>
  );
}

function CreateForm({ onCancel }: { onCancel: () => void }) {
  const [title, setTitle] = useState('');
  const [slug, setSlug] = useState('');
  const [slugTouched, setSlugTouched] = useState(false);
  const [description, setDescription] = useState('');
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: () =>
      createDashboard({
        title,
        slug: slug || titleSlug(title),
        ...(description.trim() ? { description } : {}),
        definition: emptyDefinition(),
      }),
    onSuccess: (created) => {
      void client.invalidateQueries({ queryKey: keys.dashboards.lists });
      navigate('dashboard', { id: created.id }, { edit: '1' });
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <form className="form" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">New dashboard</h2>
      <label htmlFor="new-title">Title</label>
      <input
        id="new-title"
        required
        maxLength={200}
        value={title}
        autoFocus
        onChange={(e) => {
          setTitle(e.target.value);
          if (!slugTouched) setSlug(titleSlug(e.target.value));
        }}
      />
      <label htmlFor="new-slug">Short name</label>
      <input
        id="new-slug"
        required
        maxLength={100}
        pattern="[a-z0-9]+(-[a-z0-9]+)*"
        aria-describedby="new-slug-hint"
        value={slug}
        onChange={(e) => {
          setSlug(e.target.value);
          setSlugTouched(true);
        }}
      />
      <p id="new-slug-hint" className="hint">
        Lower-case letters, digits and single hyphens; unique in your tenant.
      </p>
      <label htmlFor="new-description">Description (optional)</label>
      <textarea
        id="new-description"
        maxLength={2000}
        rows={2}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <div role="alert" className="error">
        {create.error ? messageOf(create.error) : ''}
      </div>
      <div className="actions">
        <button type="submit" disabled={create.isPending || create.isSuccess}>
          Create dashboard
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
