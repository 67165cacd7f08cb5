import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiCreateDataSource, ApiDataSourceDetail, ApiUpdateDataSource } from '../api/types.ts';
import type { SQL_WRITERS } from '../app/roles.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';

/** Add or edit a data source. The URL is write-only: the form says whether one is set and never shows it. */
export function DataSourceForm({
  editing,
  onSaved,
  onCancel,
}: {
  editing?: ApiDataSourceDetail | undefined;
  onSaved: (message: string) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(editing?.name ?? '');
  const [slug, setSlug] = useState(editing?.slug ?? '');
  const [type, setType] = useState<'postgres' | 'mysql'>(editing?.type ?? 'postgres');
  const [url, setUrl] = useState('');
  const [readOnly, setReadOnly] = useState(editing?.readOnly ?? true);
  const [sqlRole, setSqlRole] = useState<keyof typeof SQL_WRITERS>(editing?.sqlRole ?? 'editor');
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
      if (editing) {
        const body: ApiUpdateDataSource = {
          name,
          slug,
          type,
          readOnly,
          sqlRole,
          ...(url ? { connectionUrl: url } : {}),
        };
        await api('PUT', `/datasources/${editing.id}`, { body });
        return `Data source ${name} saved.`;
      }
      const body: ApiCreateDataSource = { name, slug, type, readOnly, sqlRole, connectionUrl: url };
      await api('POST', '/datasources', { body });
      return `Data source ${name} added.`;
    },
    onSuccess: async (said) => {
      await client.invalidateQueries({ queryKey: keys.dataSources.all });
      onSaved(said);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  const urlState = editing
    ? editing.hasConnectionUrl
      ? 'set'
      : editing.connectionUrlEnv
        ? `from ${editing.connectionUrlEnv}`
        : 'not set'
    : undefined;
  return (
    <form className="form" onSubmit={submit} aria-labelledby="ds-form-title">
      <h2 id="ds-form-title">{editing ? `Edit ${editing.name}` : 'Add a data source'}</h2>
      <label htmlFor="ds-name">Name</label>
      <input id="ds-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="ds-slug">Short name</label>
      <input
        id="ds-slug"
        required
        maxLength={100}
        pattern="[a-z0-9]+(-[a-z0-9]+)*"
        aria-describedby="ds-slug-hint"
        value={slug}
        onChange={(e) => setSlug(e.target.value)}
      />
      <p id="ds-slug-hint" className="hint">
        Lower-case letters, digits and single hyphens.
      </p>
      <label htmlFor="ds-type">Database</label>
      <select id="ds-type" value={type} onChange={(e) => setType(e.target.value as 'postgres' | 'mysql')}>
        <option value="postgres">PostgreSQL</option>
        <option value="mysql">MySQL or MariaDB</option>
      </select>
      <label htmlFor="ds-url">Connection URL</label>
      <input
        id="ds-url"
        type="password"
        autoComplete="off"
        required={!editing}
        maxLength={2000}
        aria-describedby="ds-url-hint"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
      />
      <p id="ds-url-hint" className="hint">
        {type === 'postgres'
          ? 'postgres://user:password@host:5432/database'
          : 'mysql://user:password@host:3306/database'}
        . Stored encrypted and never shown again.
        {urlState && ` Currently: ${urlState}; leave empty to keep it.`}
      </p>
      <label className="check">
        <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read-only
        (recommended)
      </label>
      <label htmlFor="ds-sql-role">Who may write SQL on it</label>
      <select
        id="ds-sql-role"
        value={sqlRole}
        aria-describedby="ds-sql-role-hint"
        onChange={(e) => setSqlRole(e.target.value as keyof typeof SQL_WRITERS)}
      >
        <option value="editor">Editors, admins and owners</option>
        <option value="admin">Admins and owners</option>
        <option value="owner">Owners only</option>
      </select>
      <p id="ds-sql-role-hint" className="hint">
        Everyone still sees the dashboards and saved queries built on it; this limits who writes new SQL.
      </p>
      {save.error && (
        <p role="alert" className="error">
          {messageOf(save.error)}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {editing ? 'Save' : 'Add data source'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
