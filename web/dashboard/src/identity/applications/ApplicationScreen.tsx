import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { ActivityPanel } from './ActivityPanel.tsx';
import { APP_TYPES, grantsOf } from './app-types.ts';
import { applicationQuery } from './queries.ts';
import { SecretsPanel } from './SecretsPanel.tsx';
import { SettingsForm } from './SettingsForm.tsx';
import { StatusAction } from './StatusAction.tsx';
import '../identity.css';

/**
 * One application at identity: what it is, deactivating and reactivating it, its settings to edit, its secrets to
 * rotate and revoke (a confidential app), and its recent token activity. Its name, description and URLs were typed by
 * someone: text only, the logo a link only when safe.
 */
export default function ApplicationScreen({ id }: { id: string }) {
  const app = useQuery(applicationQuery(id));
  useScreen(app.data?.name ?? 'Application');
  const [message, setMessage] = useState('');
  if (app.isPending) return <p role="status">Loading the application…</p>;
  if (app.isError) {
    const gone = app.error instanceof ApiError && (app.error.status === 404 || app.error.status === 400);
    return (
      <>
        <p className="crumbs">
          <Link to="applications">Applications</Link>
        </p>
        <h1>{gone ? 'No such application' : 'The application could not be loaded'}</h1>
        <p role="alert" className="error">
          {gone
            ? 'Identity has no application at this address.'
            : messageOf(app.error, 'the identity service could not be reached')}
        </p>
      </>
    );
  }
  const a = app.data;
  return (
    <>
      <p className="crumbs">
        <Link to="applications">Applications</Link>
      </p>
      <h1 className="typed">{a.name}</h1>
      {a.description && <p className="description typed">{a.description}</p>}
      <p role="status" className="status">
        {message}
      </p>
      <dl className="facts">
        <dt>Client id</dt>
        <dd>
          <code>{a.client_id}</code>
        </dd>
        <dt>Kind</dt>
        <dd>
          {APP_TYPES[a.app_type]?.name ?? a.app_type} ({a.public ? 'public: no secret' : 'confidential'})
        </dd>
        <dt>Grants</dt>
        <dd>{grantsOf(a)}</dd>
        <dt>Status</dt>
        <dd>{a.active ? 'active' : 'deactivated: it gets no tokens, and those it had no longer count'}</dd>
        <dt>Logo</dt>
        <dd>{a.logo_url ? <SafeLink href={a.logo_url} /> : 'none'}</dd>
      </dl>
      <StatusAction app={a} onDone={setMessage} />
      <section className="screen-section" aria-labelledby="app-settings">
        <h2 id="app-settings">Settings</h2>
        <SettingsForm app={a} onSaved={setMessage} />
      </section>
      {!a.public && <SecretsPanel app={a} />}
      <ActivityPanel app={a} />
    </>
  );
}
