import { EventFilterFields } from '../EventFilterFields.tsx';
import { useCallback, useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import '../../app/console-screens.css';
import { Link } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { useCursorPages, type PagePosition } from '../../data/paging.ts';
import { eventsApi, eventsPath, readKeys, useCounts, useProjects, type ApiEventSummary } from './api.ts';
import { CountsView } from './CountsView.tsx';
import './explorer.css';
import {
  appliedRange,
  EMPTY,
  filtersInAddress,
  keepFiltersInAddress,
  keepPageInAddress,
  pageInAddress,
  type Filters,
} from './address.ts';
import { chooseProject, projectInAddress, ProjectPicker } from './ProjectPicker.tsx';
import { PRESETS, rangeOf, type Range } from './range.ts';
import { ANY_TYPE, ofTypes, typeQuery } from './type-choice.ts';
import { TypeFilter } from './TypeFilter.tsx';
import { formatInstant } from '../../app/datetime.ts';

/**
 * Events → Explorer: a project's events over a time range, counted by hour or day and by type (charts with tables),
 * listed newest first 50 a page, narrowed to some types or to all but some, by user or by session, with or without
 * the project's internal and test users (its project screen lists them); a user or session
 * opens its timeline, an event id its full payload. The project, every filter applied and the page of results are
 * kept in the address (address.ts), so a reload, Back from an event or a shared link shows the same events.
 * Everything an event holds is shown as text.
 */
export default function ExplorerScreen() {
  useScreen('Explorer');
  const [projectId, setProjectId] = useState(projectInAddress);
  const [form, setForm] = useState<Filters>(filtersInAddress);
  const [applied, setApplied] = useState<{ filters: Filters; range: Range }>(() => ({
    filters: form,
    range: appliedRange(form),
  }));
  // Read only once the picker knows the project: a link to one that is gone asks ingest nothing, the picker moves on.
  const known = useProjects().data?.some((p) => p.id === projectId) ?? false;
  const [problem, setProblem] = useState('');
  // The page of results, kept in the address like the filters; another project or other filters start at page 1.
  const [page, setPage] = useState(pageInAddress);
  const turn = useCallback((to: number) => {
    setPage(to);
    keepPageInAddress(to);
  }, []);
  const pick = useCallback(
    (id: string) => {
      chooseProject(id);
      setProjectId(id);
      turn(1);
    },
    [turn],
  );

  const apply = (filters: Filters) => {
    const range = rangeOf(filters.preset, filters.since, filters.until);
    if (typeof range === 'string') {
      setProblem(range);
      return;
    }
    setProblem('');
    setForm(filters);
    setApplied({ filters, range });
    setPage(1);
    keepFiltersInAddress(filters, range);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(form);
  };
  const set = (k: Exclude<keyof Filters, 'types' | 'hideInternal'>) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));

  return (
    <>
      <h1>Explorer</h1>
      <p className="description">
        A project's events over time: counts by type and by hour or day, the events themselves, one person's or one
        session's timeline, and each event in full.
      </p>
      <search aria-label="Events">
        <form className="filters-bar" onSubmit={submit}>
          <ProjectPicker id="explore-project" value={projectId} onChange={pick} />
          <div className="field">
            <label htmlFor="explore-range">Time range</label>
            <select id="explore-range" value={form.preset} onChange={set('preset')}>
              {Object.entries(PRESETS).map(([k, label]) => (
                <option key={k} value={k}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          {form.preset === 'custom' && (
            <>
              <div className="field">
                <label htmlFor="explore-since">From</label>
                <input id="explore-since" type="datetime-local" value={form.since} onChange={set('since')} />
              </div>
              <div className="field">
                <label htmlFor="explore-until">Until</label>
                <input id="explore-until" type="datetime-local" value={form.until} onChange={set('until')} />
              </div>
            </>
          )}
          <EventFilterFields
            idPrefix="explore"
            values={form}
            set={set}
            typeField={
              <TypeFilter
                idPrefix="explore"
                value={form.types}
                onChange={(types) => setForm((f) => ({ ...f, types }))}
              />
            }
          />
          <div className="field checkbox">
            <input
              id="explore-hide-internal"
              type="checkbox"
              checked={form.hideInternal}
              onChange={(e) => setForm((f) => ({ ...f, hideInternal: e.target.checked }))}
            />
            <label htmlFor="explore-hide-internal">Hide internal and test users</label>
          </div>
          <div className="actions">
            <button type="submit">Search</button>
            <button type="button" className="secondary" onClick={() => apply(EMPTY)}>
              Clear
            </button>
          </div>
        </form>
      </search>
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
      {projectId && known && (
        <ProjectEvents projectId={projectId} applied={applied} apply={apply} position={{ page, onPage: turn }} />
      )}
    </>
  );
}

/** The chosen project's counts and events: read only once a project is chosen. */
function ProjectEvents({
  projectId,
  applied,
  apply,
  position,
}: {
  projectId: string;
  applied: { filters: Filters; range: Range };
  apply: (filters: Filters) => void;
  position: PagePosition;
}) {
  const { filters, range } = applied;
  const types = typeQuery(filters.types);
  const internal = filters.hideInternal ? ({ internal: 'exclude' } as const) : {};
  const counts = useCounts(projectId, { ...range, ...types, ...internal });
  const pages = useCursorPages<ApiEventSummary>(
    readKeys.events(projectId),
    eventsPath(projectId),
    {
      from: range.from,
      to: range.to,
      ...types,
      ...internal,
      user: filters.user.trim() || undefined,
      session: filters.session.trim() || undefined,
    },
    50,
    eventsApi.get,
    position,
  );
  const count = pages.items?.length ?? 0;
  const timeline = filters.user.trim()
    ? `Timeline of user ${filters.user.trim()}`
    : filters.session.trim()
      ? `Timeline of session ${filters.session.trim()}`
      : 'Events, newest first';

  return (
    <>
      <section aria-labelledby="counts-heading">
        <h2 id="counts-heading">Counts</h2>
        {counts.error ? (
          <p role="alert" className="error">
            {messageOf(counts.error, 'the ingest service could not be reached')}
          </p>
        ) : counts.data ? (
          <>
            <p className="status">
              {counts.data.total.toLocaleString()} event{counts.data.total === 1 ? '' : 's'}
              {ofTypes(filters.types)}
              {filters.hideInternal ? ' from users other than internal and test ones' : ''} from{' '}
              <time dateTime={counts.data.from}>{formatInstant(counts.data.from)}</time> to{' '}
              <time dateTime={counts.data.to}>{formatInstant(counts.data.to)}</time>.
            </p>
            <CountsView counts={counts.data} />
          </>
        ) : (
          <p className="status">Counting…</p>
        )}
      </section>
      <section aria-labelledby="events-heading">
        <h2 id="events-heading">{timeline}</h2>
        {pages.error !== null && pages.error !== undefined && (
          <p role="alert" className="error">
            {messageOf(pages.error, 'the ingest service could not be reached')}
          </p>
        )}
        <p role="status" className="status">
          {pages.items
            ? count === 0
              ? 'No event matches.'
              : `Page ${pages.page}: ${count} event${count === 1 ? '' : 's'}${pages.hasNext ? ', more on the next page' : ''}.`
            : ''}
        </p>
        {pages.items && count > 0 && (
          <WideTable label="Events">
            <table>
              {/* The heading above says it already: the caption names the table for a screen reader only. */}
              <caption className="visually-hidden">{timeline}</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Type</th>
                  <th scope="col">User</th>
                  <th scope="col">Session</th>
                  <th scope="col">Event</th>
                </tr>
              </thead>
              <tbody>
                {pages.items.map((e) => (
                  <tr key={e.id}>
                    <th scope="row">
                      <time dateTime={e.timestamp}>{formatInstant(e.timestamp)}</time>
                    </th>
                    <td>
                      <code>{e.type}</code>
                      {e.name && <span className="hint block">{e.name}</span>}
                    </td>
                    <td className="id-cell">
                      {e.user_id === null ? (
                        <span className="hint">none</span>
                      ) : (
                        <button
                          type="button"
                          className="link"
                          aria-label={`Timeline of user ${e.user_id}`}
                          onClick={() => apply({ ...filters, user: e.user_id!, session: '', types: ANY_TYPE })}
                        >
                          {e.user_id}
                        </button>
                      )}
                    </td>
                    <td className="id-cell">
                      <button
                        type="button"
                        className="link"
                        aria-label={`Timeline of session ${e.session_id}`}
                        onClick={() => apply({ ...filters, session: e.session_id, user: '', types: ANY_TYPE })}
                      >
                        {e.session_id}
                      </button>
                    </td>
                    <td className="id-cell">
                      <Link to="eventDetail" params={{ project: projectId, eventId: e.event_id }}>
                        {e.event_id}
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
        )}
        <Pager pages={pages} label="Events" />
      </section>
    </>
  );
}
