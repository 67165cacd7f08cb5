import '../../app/console-screens.css';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { useEvent } from './api.ts';
import './explorer.css';
import { formatInstant } from '../../app/datetime.ts';

/** Fields of the contract holding an address: a link when it is http(s), plain text otherwise. */
const ADDRESS_FIELDS = ['page.url', 'page.referrer'] as const;

/** One event in full: its fields, the page it came from, and its payload as pretty JSON (text, never markup). */
export default function EventScreen({ project, eventId }: { project: string; eventId: string }) {
  useScreen(`Event ${eventId}`);
  const event = useEvent(project, eventId);
  const e = event.data;
  return (
    <>
      <p>
        <Link to="eventsExplorer" search={{ project }}>
          Back to the explorer
        </Link>
      </p>
      <h1>Event {eventId}</h1>
      {event.error ? (
        <p role="alert" className="error">
          {messageOf(event.error, 'the ingest service could not be reached')}
        </p>
      ) : !e ? (
        <p className="status">Loading the event…</p>
      ) : (
        <>
          <dl className="facts event-facts">
            <dt>Project</dt>
            <dd>{project}</dd>
            <dt>Type</dt>
            <dd>
              <code>{e.type}</code>
            </dd>
            <dt>When</dt>
            <dd>
              <time dateTime={e.timestamp}>{formatInstant(e.timestamp)}</time>
            </dd>
            <dt>Received</dt>
            <dd>
              <time dateTime={e.received_at}>{formatInstant(e.received_at)}</time>
            </dd>
            <dt>User</dt>
            <dd>{e.user_id ?? 'none'}</dd>
            <dt>Session</dt>
            <dd>{e.session_id}</dd>
            {ADDRESS_FIELDS.map((f) =>
              typeof e.body[f] === 'string' ? (
                <div key={f} className="contents">
                  <dt>{f}</dt>
                  <dd>
                    <SafeLink href={e.body[f] as string} />
                  </dd>
                </div>
              ) : null,
            )}
          </dl>
          <section aria-labelledby="payload-heading">
            <h2 id="payload-heading">Payload</h2>
            <pre className="payload">{JSON.stringify(e.body, null, 2)}</pre>
          </section>
        </>
      )}
    </>
  );
}
