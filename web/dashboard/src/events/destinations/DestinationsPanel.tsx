import { useState } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { Link } from '../../app/router.tsx';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { useCursorPages } from '../../data/paging.ts';
import {
  ingestApi,
  ingestKeys,
  seg,
  type ApiCreatedDestination,
  type ApiDestination,
  type ApiProject,
} from '../admin-api.ts';
import { NewDestination } from './NewDestination.tsx';
import { vendorName } from './vendors.ts';

/**
 * A project's destinations, oldest first: each with its vendor, its host (the rest of the URL stays sealed), whether it
 * is paused, and what waits or died there; each opens its figures, test send and dead letters. "Add destination" asks
 * the vendor's settings in a dialog; a webhook secret the service made is shown once here.
 */
export function DestinationsPanel({ project }: { project: ApiProject }) {
  const pages = useCursorPages<ApiDestination>(
    ingestKeys.destinations(project.id),
    `/projects/${seg(project.id)}/destinations`,
    {},
    25,
    ingestApi.get,
  );
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<ApiCreatedDestination>();
  return (
    <section className="screen-section" aria-labelledby="project-destinations">
      <h2 id="project-destinations">Destinations</h2>
      <p className="hint">Every event the project accepts is forwarded to each destination that is not paused.</p>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            setAdded(undefined);
            setAdding(true);
          }}
        >
          Add destination
        </button>
      </div>
      <p role="status" className="status">
        {added ? `The destination ${added.name} is added.` : ''}
      </p>
      {added?.secret && (
        <SecretOnce
          title="The webhook's signing secret, shown this once"
          label={`the signing secret of ${added.name}`}
          value={added.secret}
          note="The receiver checks X-Ingest-Signature with it: copy it there now, it cannot be shown again."
        />
      )}
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the ingest service could not be reached')}
        </p>
      )}
      {pages.items && pages.items.length === 0 && <p>No destination yet: events are stored, not forwarded.</p>}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Destinations">
          <table>
            <caption>Destinations of {project.name}, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Vendor</th>
                <th scope="col">Address</th>
                <th scope="col">Status</th>
                <th scope="col">Waiting</th>
                <th scope="col">Dead letters</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <Link to="eventDestination" params={{ id: d.id }}>
                      {d.name}
                    </Link>
                  </th>
                  <td>{vendorName(d.kind)}</td>
                  <td>
                    <code>{d.base_url}</code>
                  </td>
                  <td>{d.enabled ? 'sending' : 'paused'}</td>
                  <td>{d.pending}</td>
                  <td>{d.dead_letters}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Destinations" />
      {adding && (
        <NewDestination
          project={project}
          onClose={() => setAdding(false)}
          onCreated={(d) => {
            setAdding(false);
            setAdded(d);
          }}
        />
      )}
    </section>
  );
}
