import { useState } from 'react';
import { downloadBlob } from '../../app/download.ts';
import { messageOf } from '../../data/errors.ts';
import { auditsApi } from '../api.ts';

const FILES = [
  { what: 'HTML report', path: 'report?format=html', accept: 'text/html', ext: 'html' },
  { what: 'JSON', path: 'report?format=json', accept: 'application/json', ext: 'json' },
  { what: 'OpenACR', path: 'openacr', accept: 'application/yaml', ext: 'openacr.yaml' },
] as const;

/**
 * The run's report files, each a button: read with the console's token (a bare link would carry none) and saved
 * through the browser's download, so the HTML report never opens inside the console.
 */
export function Downloads({ id }: { id: string }) {
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (f: (typeof FILES)[number]) => {
    setBusy(true);
    setSaid(`Downloading the ${f.what}…`);
    try {
      downloadBlob(
        `audit-${id}.${f.ext}`,
        await auditsApi.blob(`/audits/${encodeURIComponent(id)}/${f.path}`, f.accept),
      );
      setSaid(`The ${f.what} is downloaded.`);
    } catch (err) {
      setSaid(`The ${f.what} could not be downloaded: ${messageOf(err, 'the audit service could not be reached')}.`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="downloads-heading">
      <h2 id="downloads-heading">Downloads</h2>
      <div className="actions downloads">
        {FILES.map((f) => (
          <button key={f.ext} type="button" className="secondary" disabled={busy} onClick={() => void save(f)}>
            Download {f.what}
          </button>
        ))}
      </div>
      <p role="status" className="status">
        {said}
      </p>
    </section>
  );
}
