import { EventFilterFields } from '../EventFilterFields.tsx';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import '../../app/console-screens.css';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import '../explorer/explorer.css';
import { chooseProject, projectInAddress, ProjectPicker } from '../explorer/ProjectPicker.tsx';
import './live.css';
import { useLiveStream, type LiveQuery, type LiveRecord } from './useLiveStream.ts';
import { formatTimeOfDay } from '../../app/datetime.ts';

/** Events kept on the screen, newest first; older ones leave it (the explorer has them all). */
export const SHOWN = 200;
/** Events held while paused, at most: beyond, the oldest held are let go. */
const HELD = 500;
/** A screen reader hears at most one summary this often. */
const ANNOUNCE_MS = 5_000;

interface Shown {
  key: number;
  record: LiveRecord;
}
interface Filters {
  type: string;
  user: string;
  session: string;
  rejected: boolean;
  hideInternal: boolean;
}
const EMPTY: Filters = { type: '', user: '', session: '', rejected: true, hideInternal: false };
const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;

function Row({ record, projectId }: { record: LiveRecord; projectId: string }) {
  const rejected = record.kind === 'rejected';
  const url = record.kind === 'accepted' ? record.body?.['page.url'] : undefined;
  return (
    <li className={rejected ? 'live-item rejected' : 'live-item'}>
      <p className="live-head">
        <span className={rejected ? 'badge badge-rejected' : 'badge badge-accepted'}>
          {rejected ? 'Rejected' : 'Accepted'}
        </span>{' '}
        <time dateTime={record.at}>{formatTimeOfDay(record.at)}</time> <code>{record.type ?? 'no type'}</code>
      </p>
      {rejected && (
        <p className="live-reason">
          <strong>{record.reason}</strong>: {record.error}
          {record.project_id === null && ' (not tied to a project: no valid key)'}
          {record.origin && ` — from ${record.origin}`}
        </p>
      )}
      <dl className="live-facts">
        {record.user_id !== null && (
          <>
            <dt>User</dt>
            <dd>{record.user_id}</dd>
          </>
        )}
        {record.session_id !== null && (
          <>
            <dt>Session</dt>
            <dd>{record.session_id}</dd>
          </>
        )}
        {record.event_id !== null && (
          <>
            <dt>Event</dt>
            <dd>
              {record.kind === 'accepted' ? (
                <Link to="eventDetail" params={{ project: projectId, eventId: record.event_id }}>
                  {record.event_id}
                </Link>
              ) : (
                record.event_id
              )}
            </dd>
          </>
        )}
        {typeof url === 'string' && (
          <>
            <dt>Page</dt>
            <dd>
              <SafeLink href={url} />
            </dd>
          </>
        )}
      </dl>
      {record.kind === 'accepted' &&
        (record.body ? (
          <details>
            <summary>Payload</summary>
            <pre className="payload">{JSON.stringify(record.body, null, 2)}</pre>
          </details>
        ) : (
          <p className="hint">The payload is too large to show live: open the event.</p>
        ))}
    </li>
  );
}

/**
 * Events → Live: a project's events as ingest accepts or rejects them (rejected ones with the reason), filtered by
 * type, user and session on the server, with or without the project's internal and test users (its project screen
 * lists them; the explorer hides them by the same box). A screen reader hears a summary ("12 new events, 2 rejected") at most every
 * five seconds; Pause holds new events (and the summaries) until Resume.
 */
export default function LiveScreen() {
  useScreen('Live events');
  const [projectId, setProjectId] = useState(projectInAddress);
  const [form, setForm] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [shown, setShown] = useState<Shown[]>([]);
  const [paused, setPaused] = useState(false);
  const [heldCount, setHeldCount] = useState(0);
  const [dropped, setDropped] = useState(0);
  const [announcement, setAnnouncement] = useState('');
  const held = useRef<Shown[]>([]);
  const pending = useRef({ accepted: 0, rejected: 0 });
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const next = useRef(0);

  const pick = useCallback((id: string) => {
    chooseProject(id);
    setProjectId(id);
    setShown([]);
    held.current = [];
    setHeldCount(0);
  }, []);

  const onRecord = useCallback((record: LiveRecord) => {
    const item = { key: next.current++, record };
    if (pausedRef.current) {
      held.current = [item, ...held.current].slice(0, HELD);
      setHeldCount(held.current.length);
      return;
    }
    pending.current[record.kind]++;
    setShown((s) => [item, ...s].slice(0, SHOWN));
  }, []);
  const onDropped = useCallback((count: number) => setDropped((d) => d + count), []);

  const query: LiveQuery | undefined = projectId ? { projectId, ...applied } : undefined;
  const state = useLiveStream(query, onRecord, onDropped);

  // One summary per interval at most, only when something new came: never one announcement per event.
  useEffect(() => {
    const timer = setInterval(() => {
      const { accepted, rejected } = pending.current;
      if (accepted + rejected === 0) return;
      pending.current = { accepted: 0, rejected: 0 };
      setAnnouncement(
        `${plural(accepted + rejected, 'new event')}${rejected ? `, ${rejected.toLocaleString()} rejected` : ''}.`,
      );
    }, ANNOUNCE_MS);
    return () => clearInterval(timer);
  }, []);

  const togglePause = () => {
    if (paused) {
      const released = held.current;
      held.current = [];
      setHeldCount(0);
      for (const r of released) pending.current[r.record.kind]++;
      setShown((s) => [...released, ...s].slice(0, SHOWN));
    }
    setPaused(!paused);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setShown([]);
    setApplied(form);
  };
  const set = (k: 'type' | 'user' | 'session') => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));

  const connection =
    state.kind === 'live'
      ? 'Connected: new events appear as they arrive.'
      : state.kind === 'connecting'
        ? 'Connecting…'
        : state.kind === 'retrying'
          ? `Reconnecting: ${state.message}.`
          : `Stopped: ${state.message}.`;
  const rejectedShown = shown.filter((s) => s.record.kind === 'rejected').length;

  return (
    <>
      <h1>Live events</h1>
      <p className="description">
        Events as the ingest service receives them, accepted or rejected with the reason: for checking that an app sends
        what it should. The last {SHOWN} are shown; the explorer has every stored event.
      </p>
      <search aria-label="Live events">
        <form className="filters-bar" onSubmit={submit}>
          <ProjectPicker id="live-project" value={projectId} onChange={pick} />
          <EventFilterFields idPrefix="live" values={form} set={set} />
          <div className="field checkbox">
            <input
              id="live-rejected"
              type="checkbox"
              checked={form.rejected}
              onChange={(e) => setForm((f) => ({ ...f, rejected: e.target.checked }))}
            />
            <label htmlFor="live-rejected">Show rejected events</label>
          </div>
          {/* The explorer's box, applied by the service with the explorer's rule to the list as the stream opens. */}
          <div className="field checkbox">
            <input
              id="live-hide-internal"
              type="checkbox"
              checked={form.hideInternal}
              onChange={(e) => setForm((f) => ({ ...f, hideInternal: e.target.checked }))}
            />
            <label htmlFor="live-hide-internal">Hide internal and test users</label>
          </div>
          <div className="actions">
            <button type="submit">Apply filters</button>
          </div>
        </form>
      </search>
      {/* Without a project there is nothing to connect to, pause or clear: it said "Connecting…" for ever. */}
      {projectId && (
        <div className="live-bar">
          <p
            className={state.kind === 'failed' ? 'error' : 'status'}
            role={state.kind === 'failed' ? 'alert' : undefined}
          >
            {connection}
          </p>
          {/* The two buttons wrap together: at 320 px Clear went to a line of its own under Pause. */}
          <div className="actions">
            <button type="button" className="secondary" aria-pressed={paused} onClick={togglePause}>
              {paused ? 'Resume' : 'Pause'}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setShown([]);
                setDropped(0);
              }}
            >
              Clear
            </button>
          </div>
        </div>
      )}
      <p className="status">
        {!projectId
          ? ''
          : shown.length === 0
            ? 'No event yet.'
            : `${plural(shown.length, 'event')} shown, ${rejectedShown.toLocaleString()} rejected.`}
        {paused && ` Paused: ${plural(heldCount, 'new event')} held.`}
        {dropped > 0 && ` ${plural(dropped, 'event')} arrived faster than the live view shows and were left out.`}
      </p>
      <div role="status" aria-live="polite" className="visually-hidden">
        {announcement}
      </div>
      {projectId && shown.length > 0 && (
        <section aria-labelledby="live-list-heading">
          <h2 id="live-list-heading" className="visually-hidden">
            Events, newest first
          </h2>
          <ol className="live-list">
            {shown.map((s) => (
              <Row key={s.key} record={s.record} projectId={projectId} />
            ))}
          </ol>
        </section>
      )}
    </>
  );
}
