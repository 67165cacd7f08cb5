import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog, ModalDialog } from '../../app/ModalDialog.tsx';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { useCursorPages } from '../../data/paging.ts';
import {
  ingestApi,
  ingestKeys,
  seg,
  type ApiDeadLetter,
  type ApiDeadLetterDetail,
  type ApiDestination,
} from '../admin-api.ts';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * The events a destination refused or could not take in time, oldest first, each with the destination's error: one
 * opens with its event as received (text), one or all are queued again. The errors and the events came from outside:
 * text only.
 */
export function DeadLettersPanel({ destination }: { destination: ApiDestination }) {
  const client = useQueryClient();
  const key = ingestKeys.deadLetters(destination.id);
  const pages = useCursorPages<ApiDeadLetter>(
    key,
    `/destinations/${seg(destination.id)}/dead-letters`,
    {},
    25,
    ingestApi.get,
  );
  const [said, setSaid] = useState('');
  const [open, setOpen] = useState<ApiDeadLetter>();
  const [replayingAll, setReplayingAll] = useState(false);
  const replay = useMutation({
    mutationFn: (ids: number[] | undefined) =>
      ingestApi.call<{ replayed: number }>('POST', `/destinations/${seg(destination.id)}/dead-letters/replay`, {
        body: ids ? { ids } : {},
      }),
    onSuccess: async ({ replayed }) => {
      setReplayingAll(false);
      setOpen(undefined);
      setSaid(
        replayed === 0
          ? 'Nothing was queued: the dead letter is gone already.'
          : `${replayed} event${replayed === 1 ? ' is' : 's are'} queued again${destination.enabled ? '' : ' (sent once the destination is resumed)'}.`,
      );
      await Promise.all([
        client.invalidateQueries({ queryKey: key }),
        client.invalidateQueries({ queryKey: ingestKeys.figures(destination.id) }),
        client.invalidateQueries({ queryKey: ingestKeys.destination(destination.id) }),
      ]);
    },
  });
  const count = pages.items?.length;
  return (
    <section className="screen-section" aria-labelledby="destination-dead">
      <h2 id="destination-dead">Dead letters</h2>
      <p className="hint">
        Events the destination refused, or could not take after every attempt. Queued again, they go through the same
        attempts as any event.
      </p>
      <p role="status" className="status">
        {said ||
          (count === undefined
            ? ''
            : count === 0
              ? 'No dead letter.'
              : `${count} dead letter${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`)}
      </p>
      {Boolean(replay.error ?? pages.error) && !open && !replayingAll && (
        <p role="alert" className="error">
          {messageOf(replay.error ?? pages.error, UNREACHABLE)}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <>
          <div className="actions">
            <button
              type="button"
              className="secondary"
              onClick={() => {
                replay.reset();
                setReplayingAll(true);
              }}
            >
              Replay all dead letters
            </button>
          </div>
          <WideTable label="Dead letters">
            <table>
              <caption>Dead letters of {destination.name}, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Error</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Dead since</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {pages.items.map((l) => (
                  <tr key={l.id}>
                    <th scope="row">
                      <code>{l.event_id || 'unknown'}</code>
                    </th>
                    <td className="vendor-text">{l.reason}</td>
                    <td>{l.attempts}</td>
                    <td>{whenOrNever(l.dead_at)}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="secondary small"
                        aria-label={`Inspect the dead letter of event ${l.event_id}`}
                        onClick={() => setOpen(l)}
                      >
                        Inspect
                      </button>
                      <button
                        type="button"
                        className="small"
                        disabled={replay.isPending}
                        aria-label={`Replay the event ${l.event_id}`}
                        onClick={() => replay.mutate([l.id])}
                      >
                        Replay
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
        </>
      )}
      <Pager pages={pages} label="Dead letters" />
      {open && (
        <Inspect
          destination={destination}
          letter={open}
          busy={replay.isPending}
          error={replay.error ? messageOf(replay.error, UNREACHABLE) : undefined}
          onReplay={() => replay.mutate([open.id])}
          onClose={() => {
            setOpen(undefined);
            replay.reset();
          }}
        />
      )}
      {replayingAll && (
        <ConfirmDialog
          title={`Replay every dead letter of ${destination.name}?`}
          confirm="Replay all"
          busy={replay.isPending}
          error={replay.error ? messageOf(replay.error, UNREACHABLE) : undefined}
          onConfirm={() => replay.mutate(undefined)}
          onClose={() => setReplayingAll(false)}
        >
          <p>Every one of them is queued again, oldest first. Those that fail again come back here.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The event as received: indented when it is JSON (it always is), else as it came. */
function shown(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

function Inspect({
  destination,
  letter,
  busy,
  error,
  onReplay,
  onClose,
}: {
  destination: ApiDestination;
  letter: ApiDeadLetter;
  busy: boolean;
  error: string | undefined;
  onReplay: () => void;
  onClose: () => void;
}) {
  const detail = useQuery({
    queryKey: [...ingestKeys.deadLetters(destination.id), letter.id],
    queryFn: ({ signal }) =>
      ingestApi.get<ApiDeadLetterDetail>(`/destinations/${seg(destination.id)}/dead-letters/${letter.id}`, signal),
  });
  return (
    <ModalDialog title={`Dead letter of event ${letter.event_id}`} onClose={onClose}>
      <dl className="facts">
        <dt>Error</dt>
        <dd className="vendor-text">{letter.reason}</dd>
        <dt>Attempts</dt>
        <dd>{letter.attempts}</dd>
        <dt>First failed</dt>
        <dd>{whenOrNever(letter.first_failed_at)}</dd>
        <dt>Dead since</dt>
        <dd>{whenOrNever(letter.dead_at)}</dd>
      </dl>
      <h3>The event as received</h3>
      {detail.error !== null && (
        <p role="alert" className="error">
          {messageOf(detail.error, UNREACHABLE)}
        </p>
      )}
      {detail.data && detail.data.payload === null && (
        <p>The event is no longer stored (removed by retention): replaying it sends nothing.</p>
      )}
      {detail.data?.payload && (
        <section className="scroll-box" tabIndex={0} aria-label={`The event ${letter.event_id} as received`}>
          <pre className="payload">{shown(detail.data.payload)}</pre>
        </section>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" disabled={busy} onClick={onReplay}>
          Replay this event
        </button>
        <button type="button" className="secondary" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
