import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { DialogEnd, ModalDialog } from '../../app/ModalDialog.tsx';
import { Link, navigate } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { useCursorPages } from '../../data/paging.ts';
import { ingestApi, ingestKeys, type ApiProject } from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * The ingest service's projects, oldest first, a page at a time: each opens its keys, its SDK snippet and its
 * destinations. "New project" asks a name and, optionally, the id every event will carry.
 */
export default function ProjectsScreen() {
  useScreen('Projects');
  const [creating, setCreating] = useState(false);
  const pages = useCursorPages<ApiProject>(ingestKeys.projects, '/projects', {}, 25, ingestApi.get);
  const count = pages.items?.length;
  return (
    <>
      <h1>Projects</h1>
      <p className="hint">
        A project is one site or app sending events: its API keys let it send, its destinations receive what it sent.
      </p>
      <div className="toolbar">
        <button type="button" onClick={() => setCreating(true)}>
          New project
        </button>
      </div>
      <p role="status" className="status">
        {count === undefined
          ? ''
          : count === 0
            ? 'No project yet.'
            : `${count} project${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, UNREACHABLE)}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Projects">
          <table>
            <caption>Projects, oldest first{pages.page > 1 ? ` (page ${pages.page})` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Project id</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((p) => (
                <tr key={p.id}>
                  <th scope="row">
                    <Link to="eventProject" params={{ id: p.id }}>
                      {p.name}
                    </Link>
                  </th>
                  <td>
                    <code>{p.id}</code>
                  </td>
                  <td>{whenOrNever(p.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Projects" />
      {creating && <NewProject onClose={() => setCreating(false)} />}
    </>
  );
}

function NewProject({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  const create = useMutation({
    mutationFn: () =>
      ingestApi.call<ApiProject>('POST', '/projects', {
        body: { name, ...(id.trim() ? { id: id.trim() } : {}) },
      }),
    onSuccess: async (p) => {
      await client.invalidateQueries({ queryKey: ingestKeys.projects });
      onClose();
      navigate('eventProject', { id: p.id });
    },
  });
  const errors = fieldErrors(create.error, ['name', 'id'], UNREACHABLE);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <ModalDialog title="New project" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label htmlFor="project-name">Name</label>
        <input
          id="project-name"
          required
          maxLength={200}
          autoComplete="off"
          data-autofocus
          value={name}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? 'project-name-error' : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        <FieldError id="project-name-error" message={errors.name} />
        <label htmlFor="project-id">Project id (optional)</label>
        <input
          id="project-id"
          maxLength={64}
          pattern="[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}"
          autoComplete="off"
          spellCheck={false}
          value={id}
          aria-invalid={errors.id ? true : undefined}
          aria-describedby={errors.id ? 'project-id-hint project-id-error' : 'project-id-hint'}
          onChange={(e) => setId(e.target.value)}
        />
        <p id="project-id-hint" className="hint">
          Every event carries it in <code>project_id</code>: letters, digits and <code>_ . -</code>, up to 64. Left
          empty, one is made (<code>prj_…</code>). It cannot be changed later.
        </p>
        <FieldError id="project-id-error" message={errors.id} />
        <DialogEnd error={errors.other} onClose={onClose}>
          <button type="submit" disabled={create.isPending}>
            Create project
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
