import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { useConfirm } from '../../app/useConfirm.tsx';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { useCursorPages } from '../../data/paging.ts';
import { ingestApi, ingestKeys, seg, type ApiErasure, type ApiProject } from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';

const UNREACHABLE = 'the ingest service could not be reached';
/** How often the list is read again while an erasure is still deleting. */
const REFRESH_MS = 3_000;

function statusOf(e: ApiErasure): string {
  if (e.status === 'completed') return `done: ${e.deleted.toLocaleString()} event${e.deleted === 1 ? '' : 's'} deleted`;
  if (e.status === 'running') return `deleting: ${e.deleted.toLocaleString()} so far`;
  return 'waiting to start';
}

function suppressionOf(e: ApiErasure): string {
  if (!e.suppress) return 'not asked: their new events are stored';
  if (e.suppressed) return 'on: their new events are dropped';
  return `lifted ${whenOrNever(e.suppression_lifted_at)}`;
}

/**
 * A person's right to erasure on the project screen: a user id's stored events deleted (by ingest's worker, in the
 * background) and, if asked, the user's later events dropped; the project's erasures newest first with how far each
 * got, read again while one is deleting; a suppression lifted. Both actions ask first, saying what they do.
 */
export function ErasuresPanel({ project }: { project: ApiProject }) {
  const client = useQueryClient();
  const key = useMemo(() => [...ingestKeys.project(project.id), 'erasures'], [project.id]);
  const pages = useCursorPages<ApiErasure>(key, `/projects/${seg(project.id)}/erasures`, {}, 25, ingestApi.get);
  const [userId, setUserId] = useState('');
  const [suppress, setSuppress] = useState(true);
  const [said, setSaid] = useState('');
  const [ask, dialog] = useConfirm();

  const unfinished = pages.items?.some((e) => e.status !== 'completed') ?? false;
  useEffect(() => {
    if (!unfinished) return;
    const timer = setInterval(() => void client.invalidateQueries({ queryKey: key }), REFRESH_MS);
    return () => clearInterval(timer);
  }, [unfinished, client, key]);

  const erase = useMutation({
    mutationFn: (body: { user_id: string; suppress: boolean }) =>
      ingestApi.call<ApiErasure>('POST', `/projects/${seg(project.id)}/erasures`, { body }),
    onSuccess: async (e) => {
      setUserId('');
      setSaid(
        `Erasing the events of ${e.user_id}${e.suppress ? ', and dropping their new events from now on' : ''}: the list below says when it is done.`,
      );
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const lift = useMutation({
    mutationFn: (e: ApiErasure) =>
      ingestApi.call<ApiErasure>('DELETE', `/projects/${seg(project.id)}/erasures/${seg(e.id)}/suppression`),
    // Named by the erasure as listed: once lifted, a completed one no longer keeps the id (the answer's is null).
    onSuccess: async (_lifted, asked) => {
      setSaid(`The new events of ${asked.user_id ?? 'the erasure’s user'} are stored again from now on.`);
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const errors = fieldErrors(erase.error, ['user_id'], UNREACHABLE);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const id = userId;
    if (!id) return;
    erase.reset();
    setSaid('');
    const yes = await ask({
      title: `Erase every event of ${id}?`,
      body: (
        <>
          Every event of {project.name} stored with the user id <strong>{id}</strong> (exactly, capitals included) is
          deleted, from every day: its counts, and its copies waiting to be forwarded or kept as dead letters, go with
          it. Other users’ events and events without a user id stay. This cannot be undone, and events already sent to a
          destination’s vendor are not erased there.{' '}
          {suppress
            ? 'Their new events will be dropped as they arrive until you lift the suppression.'
            : 'Their new events will still be stored.'}
        </>
      ),
      confirm: 'Erase the events',
    });
    if (yes) erase.mutate({ user_id: id, suppress });
  };

  const askLift = async (e: ApiErasure) => {
    lift.reset();
    setSaid('');
    const yes = await ask({
      title: `Lift the suppression of ${e.user_id ?? 'this user'}?`,
      body: 'Their new events will be stored again from now on. The events already erased stay erased.',
      confirm: 'Lift the suppression',
    });
    if (yes) lift.mutate(e);
  };

  return (
    <section className="screen-section" aria-labelledby="project-erasures">
      <h2 id="project-erasures">Erase a user’s events</h2>
      <p className="hint" id="erasure-help">
        When a person asks to be forgotten (the GDPR’s right to erasure), delete every event stored with their user id.
        Ingest deletes them in the background; the list below says how far it got. Suppressing the user also drops their
        new events as they arrive (the pages sending them are not told), until you lift it.
      </p>
      <form className="form" onSubmit={submit} aria-label="Erase a user’s events">
        <label htmlFor="erasure-user">User id</label>
        <input
          id="erasure-user"
          required
          maxLength={1024}
          autoComplete="off"
          spellCheck={false}
          value={userId}
          aria-invalid={errors.user_id ? true : undefined}
          aria-describedby={errors.user_id ? 'erasure-user-hint erasure-user-error' : 'erasure-user-hint'}
          onChange={(e) => setUserId(e.target.value)}
        />
        <p id="erasure-user-hint" className="hint">
          As the events carry it in <code>user.id</code>, exactly.
        </p>
        <FieldError id="erasure-user-error" message={errors.user_id} />
        <label className="check">
          <input type="checkbox" checked={suppress} onChange={(e) => setSuppress(e.target.checked)} />
          Also drop this user’s new events (suppress)
        </label>
        {errors.other && (
          <p role="alert" className="error">
            {errors.other}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="danger" disabled={erase.isPending}>
            Erase the user’s events
          </button>
        </div>
      </form>
      <p role="status" className="status">
        {said}
      </p>
      {lift.error !== null && (
        <p role="alert" className="error">
          {messageOf(lift.error, UNREACHABLE)}
        </p>
      )}
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, UNREACHABLE)}
        </p>
      )}
      {pages.items && pages.items.length === 0 && <p>No erasure asked for in this project.</p>}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Erasures">
          <table>
            <caption>Erasures of {project.name}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">User id</th>
                <th scope="col">Asked</th>
                <th scope="col">Status</th>
                <th scope="col">New events</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((e) => (
                <tr key={e.id}>
                  <th scope="row">
                    {e.user_id === null ? (
                      // Completed with no suppression holding: the service keeps only a digest of the id.
                      <span className="hint">Not kept after erasing</span>
                    ) : (
                      <code>{e.user_id}</code>
                    )}
                  </th>
                  <td>
                    {whenOrNever(e.requested_at)}
                    <br />
                    <span className="hint">by {e.requested_by}</span>
                  </td>
                  <td>{statusOf(e)}</td>
                  <td>{suppressionOf(e)}</td>
                  <td className="actions">
                    {e.suppressed && (
                      <button
                        type="button"
                        className="secondary small"
                        aria-label={`Lift suppression of ${e.user_id ?? e.id}`}
                        disabled={lift.isPending}
                        onClick={() => void askLift(e)}
                      >
                        Lift suppression
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Erasures" />
      {dialog}
    </section>
  );
}
