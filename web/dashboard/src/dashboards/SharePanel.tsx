import { useEffect, useState } from 'react';
import { api, ApiError, get } from '../api/client.ts';
import type { ApiShare } from '../api/types.ts';
import { useFocusOnOpen } from './useFocusOnOpen.ts';

/**
 * The dashboard's public link (editors): turn it on, copy it, turn it off. The link is shown as selectable text with
 * a Copy button, not as a link: opening it here would only show what the editor already sees.
 */
export function SharePanel({ id, title }: { id: number; title: string }) {
  const [share, setShare] = useState<ApiShare>();
  const [error, setError] = useState('');
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const heading = useFocusOnOpen('share');
  const failed = (err: unknown) => setError(err instanceof ApiError ? err.message : 'the service could not be reached');

  useEffect(() => {
    get<ApiShare>(`/dashboards/${id}/share`).then(setShare, failed);
  }, [id]);

  const turnOn = async () => {
    setBusy(true);
    setError('');
    try {
      setShare((await api<ApiShare>('PUT', `/dashboards/${id}/share`)).data);
      setSaid('The public link is on: anyone with it sees this dashboard.');
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  };
  const turnOff = async () => {
    if (!confirm(`Turn off the public link to “${title}”? It stops working at once for everyone who has it.`)) return;
    setBusy(true);
    setError('');
    try {
      await api('DELETE', `/dashboards/${id}/share`);
      setShare({ shared: false });
      setSaid('The public link is off.');
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(share?.url ?? '');
      setSaid('Link copied.');
    } catch {
      setSaid('Copying is not available here: select the link and copy it.');
    }
  };

  return (
    <section className="panel" aria-labelledby="share-h">
      <h2 id="share-h" ref={heading} tabIndex={-1}>
        Public link
      </h2>
      <p className="hint">
        Anyone with the link sees this dashboard's charts and tables without signing in, and can change its parameters.
        They never see its SQL or data sources.
      </p>
      <div role="alert" className="error">
        {error}
      </div>
      {share && !share.shared && (
        <p>
          <button type="button" disabled={busy} onClick={() => void turnOn()}>
            Create public link
          </button>
        </p>
      )}
      {share?.shared && (
        <div className="setup-link">
          <p>
            Public link: <code className="link-text">{share.url}</code>
          </p>
          <div className="actions">
            <button type="button" className="secondary" onClick={() => void copy()}>
              Copy link
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void turnOff()}>
              Turn off the link
            </button>
          </div>
        </div>
      )}
      <p role="status" className="status">
        {said}
      </p>
    </section>
  );
}
