import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { Link, navigate } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import '../../app/console-screens.css';
import '../events.css';
import { ingestApi, ingestKeys, seg, type ApiDestination, type ApiTestSend } from '../admin-api.ts';
import { DeadLettersPanel } from './DeadLettersPanel.tsx';
import { EditDestination } from './EditDestination.tsx';
import { FiguresPanel } from './FiguresPanel.tsx';
import { vendorName } from './vendors.ts';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * One destination: what it is (its secrets only by name), editing it (name, URL, secrets: write-only), a test send with
 * what the destination answered, pausing and resuming it, deleting it (confirmed), its delivery figures and its dead letters.
 */
export default function DestinationScreen({ id }: { id: string }) {
  const client = useQueryClient();
  const destination = useQuery({
    queryKey: ingestKeys.destination(id),
    queryFn: ({ signal }) => ingestApi.get<ApiDestination>(`/destinations/${seg(id)}`, signal),
  });
  useScreen(destination.data ? `Destination ${destination.data.name}` : 'Destination');
  const [said, setSaid] = useState('');
  const [tested, setTested] = useState<ApiTestSend>();
  const [deleting, setDeleting] = useState(false);
  const [editing, setEditing] = useState(false);
  const changed = async (d: ApiDestination) => {
    client.setQueryData(ingestKeys.destination(id), d);
    await client.invalidateQueries({ queryKey: ingestKeys.destinations(d.project_id) });
  };
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      ingestApi.call<ApiDestination>('PATCH', `/destinations/${seg(id)}`, { body: { enabled } }),
    onSuccess: async (d) => {
      setSaid(
        d.enabled
          ? `${d.name} is sending again: what waited goes first.`
          : `${d.name} is paused: new events are not queued for it; what waits stays queued.`,
      );
      await changed(d);
    },
  });
  const test = useMutation({
    mutationFn: () => ingestApi.call<ApiTestSend>('POST', `/destinations/${seg(id)}/test`),
    onMutate: () => {
      setTested(undefined);
      setSaid('Sending a test event…');
    },
    onSuccess: (r) => {
      setSaid(r.delivered ? 'The test event was delivered.' : '');
      setTested(r);
    },
    onError: () => setSaid(''),
  });
  const remove = useMutation({
    mutationFn: () => ingestApi.call<void>('DELETE', `/destinations/${seg(id)}`),
    onSuccess: async () => {
      const projectId = destination.data!.project_id;
      await client.invalidateQueries({ queryKey: ingestKeys.destinations(projectId) });
      navigate('eventProject', { id: projectId });
    },
  });

  if (destination.error)
    return (
      <>
        <p className="crumbs">
          <Link to="eventProjects">Projects</Link>
        </p>
        <h1>Destination</h1>
        <p role="alert" className="error">
          {messageOf(destination.error, UNREACHABLE)}
        </p>
      </>
    );
  if (!destination.data)
    return (
      <p role="status" className="status">
        Loading the destination…
      </p>
    );
  const d = destination.data;
  const failure = toggle.error ?? test.error;
  return (
    <>
      <p className="crumbs">
        <Link to="eventProjects">Projects</Link> ›{' '}
        <Link to="eventProject" params={{ id: d.project_id }}>
          Project <code>{d.project_id}</code>
        </Link>
      </p>
      <h1>{d.name}</h1>
      <dl className="facts">
        <dt>Vendor</dt>
        <dd>{vendorName(d.kind)}</dd>
        <dt>Address</dt>
        <dd>
          <code>{d.base_url}</code> <span className="hint">(the rest of the URL is kept sealed)</span>
        </dd>
        <dt>Secrets held</dt>
        <dd>
          {d.credential_fields.length ? d.credential_fields.join(', ') : 'none'}{' '}
          <span className="hint">(never shown)</span>
        </dd>
        <dt>Status</dt>
        <dd>{d.enabled ? 'sending' : 'paused'}</dd>
        <dt>Added</dt>
        <dd>{whenOrNever(d.created_at)}</dd>
      </dl>
      <p role="status" className="status">
        {said}
      </p>
      {tested && <TestResult result={tested} />}
      {failure && (
        <p role="alert" className="error">
          {messageOf(failure, UNREACHABLE)}
        </p>
      )}
      <div className="actions">
        <button type="button" disabled={test.isPending} onClick={() => test.mutate()}>
          Send a test event
        </button>
        {d.enabled ? (
          <button
            type="button"
            className="secondary"
            disabled={toggle.isPending}
            onClick={() => {
              setTested(undefined);
              toggle.mutate(false);
            }}
          >
            Pause
          </button>
        ) : (
          <button
            type="button"
            className="secondary"
            disabled={toggle.isPending}
            onClick={() => {
              setTested(undefined);
              toggle.mutate(true);
            }}
          >
            Resume
          </button>
        )}
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setTested(undefined);
            setEditing(true);
          }}
        >
          Edit
        </button>
        <button type="button" className="danger" onClick={() => setDeleting(true)}>
          Delete destination
        </button>
      </div>
      <FiguresPanel destination={d} />
      <DeadLettersPanel destination={d} />
      {editing && (
        <EditDestination
          destination={d}
          onClose={() => setEditing(false)}
          onSaved={async ({ secret: _, ...saved }) => {
            setEditing(false);
            setSaid(`${saved.name} is saved: the next delivery uses it as it is now.`);
            await changed(saved);
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${d.name}?`}
          confirm="Delete"
          busy={remove.isPending}
          error={remove.error ? messageOf(remove.error, UNREACHABLE) : undefined}
          onConfirm={() => remove.mutate()}
          onClose={() => {
            setDeleting(false);
            remove.reset();
          }}
        >
          <p>
            Its {d.pending} waiting event{d.pending === 1 ? '' : 's'} and {d.dead_letters} dead letter
            {d.dead_letters === 1 ? '' : 's'} go with it; the events themselves stay stored. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

const OUTCOMES: Record<ApiTestSend['outcome'], string> = {
  delivered: 'Delivered',
  retry: 'Not delivered: the destination is down or busy (a delivery would try again)',
  rejected: 'Refused by the destination (a delivery would not try again)',
  partial: 'Refused by the destination',
  unreachable: 'Not delivered: the destination could not be reached',
  refused: 'Not sent: its address is on the internal network',
};

/** What the test send came to, the destination's answer as text (said at once when it failed). */
function TestResult({ result }: { result: ApiTestSend }) {
  return (
    <section className={result.delivered ? 'test-result' : 'test-result failed'} aria-labelledby="test-result">
      <h2 id="test-result">Test send: {OUTCOMES[result.outcome]}</h2>
      <p className="vendor-text" role={result.delivered ? undefined : 'alert'}>
        {result.message}
      </p>
      <p className="hint">
        Its <code>event_id</code> at the destination: <code>{result.event_id}</code>
      </p>
    </section>
  );
}
