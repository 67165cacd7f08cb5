import { useEffect, useState } from 'react';
import { ApiError } from '../api/client.ts';
import type { ApiDashboardVersion } from '../api/types.ts';
import { listVersions } from './api.ts';
import { useFocusOnOpen } from './useFocusOnOpen.ts';
import { WideTable } from '../app/WideTable.tsx';

/** Every saved version, newest first; editors bring an earlier one back (as a new version). */
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
  const [versions, setVersions] = useState<ApiDashboardVersion[]>();
  const [error, setError] = useState('');
  const heading = useFocusOnOpen('versions');
  useEffect(() => {
    listVersions(id).then(setVersions, (err: unknown) =>
      setError(err instanceof ApiError ? err.message : 'the versions could not be loaded'),
    );
  }, [id, current]);
  return (
    <section className="panel" aria-labelledby="versions-h">
      <h2 id="versions-h" ref={heading} tabIndex={-1}>
        Version history
      </h2>
      <div role="alert" className="error">
        {error}
      </div>
      {versions && (
        <WideTable label="Versions">
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
                  <td>{new Date(v.createdAt).toLocaleString()}</td>
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
      <div className="actions">
        <button type="button" className="secondary" onClick={onClose}>
          Close history
        </button>
      </div>
    </section>
  );
}
