import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { Link } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import '../../app/console-screens.css';
import '../events.css';
import { ingestApi, ingestKeys, seg, type ApiProject } from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';
import { DestinationsPanel } from '../destinations/DestinationsPanel.tsx';
import { ErasuresPanel } from './ErasuresPanel.tsx';
import { InternalUsersPanel } from './InternalUsersPanel.tsx';
import { KeysPanel } from './KeysPanel.tsx';
import { OriginsPanel } from './OriginsPanel.tsx';
import { TrackingPlanPanel } from './TrackingPlanPanel.tsx';
import { SdkSnippet } from './SdkSnippet.tsx';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * One project: its id and name (renamed here), its API keys (a new one shown once), the origins its pages may send
 * from, the snippet a developer pastes into a page, its destinations, and a user's events erased on request.
 */
export default function ProjectScreen({ id }: { id: string }) {
  const project = useQuery({
    queryKey: ingestKeys.project(id),
    queryFn: ({ signal }) => ingestApi.get<ApiProject>(`/projects/${seg(id)}`, signal),
  });
  useScreen(project.data ? `Project ${project.data.name}` : 'Project');
  // The key made last, in the snippet until the person leaves: it is shown this once.
  const [freshKey, setFreshKey] = useState<string>();

  if (project.error)
    return (
      <>
        <p className="crumbs">
          <Link to="eventProjects">Projects</Link>
        </p>
        <h1>Project</h1>
        <p role="alert" className="error">
          {messageOf(project.error, UNREACHABLE)}
        </p>
      </>
    );
  if (!project.data)
    return (
      <p role="status" className="status">
        Loading the project…
      </p>
    );
  const p = project.data;
  return (
    <>
      <p className="crumbs">
        <Link to="eventProjects">Projects</Link>
      </p>
      <h1>{p.name}</h1>
      <dl className="facts">
        <dt>Project id</dt>
        <dd>
          <code>{p.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>{whenOrNever(p.created_at)}</dd>
      </dl>
      <Rename project={p} />
      <KeysPanel project={p} onCreated={setFreshKey} />
      <OriginsPanel project={p} />
      <InternalUsersPanel project={p} />
      <TrackingPlanPanel project={p} />
      <SdkSnippet project={p} apiKey={freshKey} />
      <DestinationsPanel project={p} />
      <ErasuresPanel project={p} />
    </>
  );
}

function Rename({ project }: { project: ApiProject }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(project.name);
  const [said, setSaid] = useState('');
  const rename = useMutation({
    mutationFn: () => ingestApi.call<ApiProject>('PATCH', `/projects/${seg(project.id)}`, { body: { name } }),
    onSuccess: async (p) => {
      client.setQueryData(ingestKeys.project(p.id), p);
      setOpen(false);
      setSaid(`The project is now named ${p.name}.`);
      await client.invalidateQueries({ queryKey: ingestKeys.projects, exact: false, refetchType: 'none' });
    },
  });
  const errors = fieldErrors(rename.error, ['name'], UNREACHABLE);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate();
  };
  return (
    <>
      <p role="status" className="status">
        {said}
      </p>
      {open ? (
        <form className="form inline-form" onSubmit={submit} aria-label="Rename the project">
          <label htmlFor="project-rename">New name</label>
          <input
            id="project-rename"
            required
            maxLength={200}
            autoComplete="off"
            autoFocus
            value={name}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? 'project-rename-error' : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          <FieldError id="project-rename-error" message={errors.name} />
          {errors.other && (
            <p role="alert" className="error">
              {errors.other}
            </p>
          )}
          <div className="actions">
            <button type="submit" disabled={rename.isPending}>
              Save the name
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setOpen(false);
                rename.reset();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="actions">
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setName(project.name);
              setSaid('');
              setOpen(true);
            }}
          >
            Rename project
          </button>
        </div>
      )}
    </>
  );
}
