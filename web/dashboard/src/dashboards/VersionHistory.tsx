import { useRef } from 'react';
import { messageOf } from '../data/errors.ts';
import { LoadMore } from '../data/LoadMore.tsx';
import { useVersions } from './api.ts';
import { useFocusOnOpen } from './useFocusOnOpen.ts';
import { WideTable } from '../app/WideTable.tsx';
import { formatDateTime } from '../app/datetime.ts';

/**
 * Every saved version, newest first, a page at a time down to the first ("Load more versions"); editors bring an
 * earlier one back (as a new version). A save or a restore refreshes the list (DashboardScreen invalidates it).
 */
export function VersionHistory({
  id,
  current,
  canRestore,
  onRestore,
  onClose,
}: {
  id: number;
  current: number;
  canRestore: boolean;
  onRestore: (v: number) => void;
  onClose: () => void;
}) {
  const list = useVersions(id);
  const versions = list.data?.pages.flatMap((p) => p.items);
  const heading = useFocusOnOpen('versions');
  const table = useRef<HTMLElement>(null);
  return (
    <section className="panel" aria-labelledby="versions-h">
      <h2 id="versions-h" ref={heading} tabIndex={-1}>
        Version history
      </h2>
      <div role="alert" className="error">
        {list.error ? messageOf(list.error, 'the versions could not be loaded') : ''}
      </div>
      {versions && (
        <WideTable label="Versions" ref={table}>
          <table>
            <caption className="visually-hidden">Versions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Title</th>
                <th scope="col">Saved</th>
                <th scope="col">Note</th>
                {canRestore && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.version}>
                  <td>{v.version}</td>
                  <td>{v.title}</td>
                  <td>{formatDateTime(v.createdAt)}</td>
                  <td>
                    {[
                      v.version === current ? 'current' : '',
                      v.restoredFrom ? `restored from version ${v.restoredFrom}` : '',
                    ]
                      .filter(Boolean)
                      .join(', ')}
                  </td>
                  {canRestore && (
                    <td>
                      {v.version !== current && (
                        <button type="button" className="secondary small" onClick={() => onRestore(v.version)}>
                          Restore version {v.version}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {versions && <LoadMore list={list} shown={versions.length} what="versions" after={table} />}
      <div className="actions">
        <button type="button" className="secondary" onClick={onClose}>
          Close history
        </button>
      </div>
    </section>
  );
}
