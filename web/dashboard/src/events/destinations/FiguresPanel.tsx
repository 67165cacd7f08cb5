import { useQuery } from '@tanstack/react-query';
import { whenOrNever } from '../../app/datetime.ts';
import { messageOf } from '../../data/errors.ts';
import { ingestApi, ingestKeys, seg, type ApiDeliveryFigures, type ApiDestination } from '../admin-api.ts';

/** Read again this often while the screen is open: the figures move as the worker delivers. */
const REFRESH_MS = 5_000;

/** A destination's delivery figures: delivered since it was added, waiting, retrying (with the last error) and dead. */
export function FiguresPanel({ destination }: { destination: ApiDestination }) {
  const figures = useQuery({
    queryKey: ingestKeys.figures(destination.id),
    queryFn: ({ signal }) => ingestApi.get<ApiDeliveryFigures>(`/destinations/${seg(destination.id)}/figures`, signal),
    refetchInterval: REFRESH_MS,
  });
  const f = figures.data;
  return (
    <section className="screen-section" aria-labelledby="destination-figures">
      <h2 id="destination-figures">Deliveries</h2>
      {figures.error !== null && (
        <p role="alert" className="error">
          {messageOf(figures.error, 'the ingest service could not be reached')}
        </p>
      )}
      {f && (
        <>
          <dl className="figures">
            <div>
              <dt>Delivered</dt>
              <dd>{f.delivered.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Waiting</dt>
              <dd>{f.waiting.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Retrying</dt>
              <dd>{f.retrying.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Dead</dt>
              <dd>{f.dead.toLocaleString()}</dd>
            </div>
          </dl>
          {f.oldest_queued_at && (
            <p className="hint">The oldest waiting event was queued {whenOrNever(f.oldest_queued_at)}.</p>
          )}
          {f.last_error && (
            <p>
              Last error: <span className="vendor-text">{f.last_error}</span>
            </p>
          )}
        </>
      )}
    </section>
  );
}
