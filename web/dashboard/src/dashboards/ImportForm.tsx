import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.ts';
import { navigate } from '../app/router.tsx';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
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
  // What is wrong with the file itself, said before anything is sent.
  const [problem, setProblem] = useState('');
  const client = useQueryClient();
  const send = useMutation({
    mutationFn: (bundle: unknown) => importDashboards(bundle, overwrite),
    onSuccess: ({ dashboards }) => {
      void client.invalidateQueries({ queryKey: keys.dashboards.all });
      if (dashboards.length === 1) {
        navigate('dashboard', { id: dashboards[0]!.id });
        return;
      }
      const said = { created: 'imported', updated: 'replaced', unchanged: 'already the same' };
      onImported(
        `Imported ${dashboards.length} dashboards: ${dashboards.map((d) => `“${d.title}” (${said[d.outcome]})`).join(', ')}.`,
      );
    },
  });
  const refusal =
    send.error instanceof ApiError && send.error.code === 'CONFLICT' && !overwrite
      ? taken(send.error.message)
      : send.error
        ? messageOf(send.error)
        : '';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setProblem('');
    send.reset();
    if (!file) {
      setProblem('Choose the file to import.');
      return;
    }
    if (file.size > MAX_BYTES) {
      setProblem(`${file.name} is larger than 5 MB: it is not a dashboard export.`);
      return;
    }
    let bundle: unknown;
    try {
      bundle = JSON.parse(await file.text());
    } catch (err) {
      setProblem(
        `${file.name} is not JSON (${err instanceof Error ? err.message : 'it could not be read'}). Choose a file exported from a dashboard.`,
      );
      return;
    }
    send.mutate(bundle);
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
          setProblem('');
          send.reset();
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
        {problem || refusal}
      </div>
      <div className="actions">
        <button type="submit" disabled={send.isPending}>
          Import
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
