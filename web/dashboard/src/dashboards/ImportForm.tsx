import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.ts';
import { navigate } from '../app/router.tsx';
import { importDashboards } from './api.ts';

/** The largest file read: an export of 50 full dashboards is well under this; a bigger file is not one. */
const MAX_BYTES = 5 * 1024 * 1024;

/** The service's 409 names the slugs taken; here they are the form's "short names", with the way out. */
function taken(message: string): string {
  const names = [...message.matchAll(/"([^"]+)"/g)].map((m) => `“${m[1]}”`);
  return `A dashboard with the short name ${names.join(', ')} already exists here. Tick “Replace” to import it as a new version of that dashboard.`;
}

/**
 * Import a dashboard exported from here or another installation (a `.dashboard.json`, or a provisioning JSON file
 * with dashboards only). One dashboard opens once imported; several are listed.
 */
export function ImportForm({ onCancel, onImported }: { onCancel: () => void; onImported: (summary: string) => void }) {
  const [file, setFile] = useState<File>();
  const [overwrite, setOverwrite] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    if (!file) {
      setError('Choose the file to import.');
      return;
    }
    if (file.size > MAX_BYTES) {
      setError(`${file.name} is larger than 5 MB: it is not a dashboard export.`);
      return;
    }
    let bundle: unknown;
    try {
      bundle = JSON.parse(await file.text());
    } catch (err) {
      setError(
        `${file.name} is not JSON (${err instanceof Error ? err.message : 'it could not be read'}). Choose a file exported from a dashboard.`,
      );
      return;
    }
    setBusy(true);
    try {
      const { dashboards } = await importDashboards(bundle, overwrite);
      if (dashboards.length === 1) {
        navigate(`/dashboards/${dashboards[0]!.id}`);
        return;
      }
      const said = { created: 'imported', updated: 'replaced', unchanged: 'already the same' };
      onImported(
        `Imported ${dashboards.length} dashboards: ${dashboards.map((d) => `“${d.title}” (${said[d.outcome]})`).join(', ')}.`,
      );
    } catch (err) {
      setError(
        err instanceof ApiError
          ? err.code === 'CONFLICT' && !overwrite
            ? taken(err.message)
            : err.message
          : 'the service could not be reached',
      );
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={submit} aria-labelledby="import-title">
      <h2 id="import-title">Import dashboards</h2>
      <label htmlFor="import-file">Exported file (.json)</label>
      <input
        id="import-file"
        type="file"
        accept=".json,application/json"
        aria-describedby="import-hint"
        autoFocus
        onChange={(e) => {
          setFile(e.target.files?.[0]);
          setError('');
        }}
      />
      <p id="import-hint" className="hint">
        Data sources are matched by their short name: this tenant needs sources with the short names the export uses.
      </p>
      <label className="check">
        <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} /> Replace a
        dashboard with the same short name (it becomes a new version; the history stays)
      </label>
      <div role="alert" className="error">
        {error}
      </div>
      <div className="actions">
        <button type="submit" disabled={busy}>
          Import
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
