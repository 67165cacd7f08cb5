import { useEffect } from 'react';
import { Link } from '../../app/router.tsx';
import { messageOf } from '../../data/errors.ts';
import { useProjects } from './api.ts';

/** The project chosen in the address (`?project=`), so a view can be shared and comes back after a reload. */
export function projectInAddress(): string | undefined {
  return new URLSearchParams(location.search).get('project') ?? undefined;
}

/** Puts the chosen project in the address without a new history entry. */
export function chooseProject(id: string): void {
  const search = new URLSearchParams(location.search);
  search.set('project', id);
  history.replaceState(null, '', `${location.pathname}?${search}`);
}

/**
 * The project a screen shows: a select of every project (the first one until one is chosen). Says so when there is
 * none (with the way to make one), or when ingest cannot be reached, on a line of its own above the other filters
 * (`filters-note`): beside them it stood where a field's label goes.
 */
export function ProjectPicker({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string | undefined;
  onChange: (projectId: string) => void;
}) {
  const projects = useProjects();
  const list = projects.data;
  useEffect(() => {
    if (list?.length && (value === undefined || !list.some((p) => p.id === value))) onChange(list[0]!.id);
  }, [list, value, onChange]);
  if (projects.error)
    return (
      <p role="alert" className="error filters-note">
        {messageOf(projects.error, 'the ingest service could not be reached')}
      </p>
    );
  if (!list) return <p className="status filters-note">Loading projects…</p>;
  if (list.length === 0)
    return (
      <p className="status filters-note">
        There is no project yet: <Link to="eventProjects">create one under Projects</Link>.
      </p>
    );
  return (
    <div className="field">
      <label htmlFor={id}>Project</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        {list.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} ({p.id})
          </option>
        ))}
      </select>
    </div>
  );
}
