import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from '../../app/router.tsx';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi, type ApiApplication, type AppType } from '../api.ts';
import { APP_TYPES, APP_TYPE_NAMES, defaultScopes } from './app-types.ts';
import { AppSettingsFields } from './AppSettingsFields.tsx';
import { bodyOf, draftOf } from './draft.ts';
import { scopesQuery } from './queries.ts';
import '../identity.css';

interface Registered {
  application: ApiApplication;
  client_secret?: string;
}

/**
 * Registers an application at identity: its kind (which decides its grants and whether it keeps a secret), an optional
 * client id of its own, and its settings. A confidential app's first secret is shown once, here, with a Copy button.
 */
export default function NewApplicationScreen() {
  useScreen('Register an application');
  const client = useQueryClient();
  const scopes = useQuery(scopesQuery());
  const [type, setType] = useState<AppType>('web');
  const [clientId, setClientId] = useState('');
  const [draft, setDraft] = useState(() => draftOf('web'));
  const [scopesTouched, setScopesTouched] = useState(false);
  const [done, setDone] = useState<Registered>();
  const register = useMutation({
    mutationFn: () => {
      const body = Object.fromEntries(Object.entries(bodyOf(type, draft)).filter(([, v]) => v !== null));
      return identityApi.call<Registered>('POST', '/applications', {
        body: { ...body, app_type: type, ...(clientId.trim() ? { client_id: clientId.trim() } : {}) },
      });
    },
    onSuccess: (r) => {
      setDone(r);
      void client.invalidateQueries({ queryKey: keys.identity.applications() });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    register.mutate();
  };
  const chooseType = (t: AppType) => {
    setType(t);
    if (!scopesTouched) setDraft((d) => ({ ...d, scopes: defaultScopes(t) }));
  };

  if (done)
    return (
      <Registered
        done={done}
        again={() => {
          register.reset();
          setDone(undefined);
          setClientId('');
          setScopesTouched(false);
          setDraft(draftOf(type));
        }}
      />
    );
  return (
    <>
      <p className="crumbs">
        <Link to="applications">Applications</Link>
      </p>
      <h1>Register an application</h1>
      <form className="form" onSubmit={submit} aria-labelledby="new-app-title">
        <h2 id="new-app-title" className="visually-hidden">
          The new application
        </h2>
        <fieldset className="choices">
          <legend>Kind</legend>
          {APP_TYPE_NAMES.map((t) => (
            <div key={t}>
              <label className="check">
                <input
                  type="radio"
                  name="app-type"
                  value={t}
                  checked={type === t}
                  aria-describedby={`type-${t}-hint`}
                  onChange={() => chooseType(t)}
                />
                {APP_TYPES[t].name}
              </label>
              <p id={`type-${t}-hint`} className="hint">
                {APP_TYPES[t].about}
              </p>
            </div>
          ))}
        </fieldset>
        <label htmlFor="app-client-id">Client id (optional)</label>
        <input
          id="app-client-id"
          value={clientId}
          maxLength={128}
          pattern="[A-Za-z0-9._~\-]{3,128}"
          autoComplete="off"
          aria-describedby="app-client-id-hint"
          onChange={(e) => setClientId(e.target.value)}
        />
        <p id="app-client-id-hint" className="hint">
          3 to 128 letters, digits and . _ ~ -; left empty, identity makes one.
        </p>
        <AppSettingsFields
          type={type}
          draft={draft}
          scopes={scopes.data ?? draft.scopes}
          onChange={(d) => {
            if (d.scopes !== draft.scopes) setScopesTouched(true);
            setDraft(d);
          }}
        />
        {scopes.error && (
          <p role="alert" className="error">
            {messageOf(scopes.error, 'the identity service could not be reached')}: the scopes could not be read.
          </p>
        )}
        {register.error && (
          <p role="alert" className="error">
            {messageOf(register.error, 'the identity service could not be reached')}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={register.isPending}>
            Register
          </button>
          <Link to="applications" className="button secondary">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}

/** What registering answered: the app, and its first secret when it keeps one, shown this once. */
function Registered({ done, again }: { done: Registered; again: () => void }) {
  const { application: app, client_secret: secret } = done;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!secret) heading.current?.focus();
  }, [secret]);
  return (
    <>
      <p className="crumbs">
        <Link to="applications">Applications</Link>
      </p>
      <h1 ref={heading} tabIndex={-1} className="typed">
        {app.name} is registered
      </h1>
      <dl className="facts">
        <dt>Client id</dt>
        <dd>
          <code>{app.client_id}</code>
        </dd>
        <dt>Kind</dt>
        <dd>{APP_TYPES[app.app_type]?.name ?? app.app_type}</dd>
      </dl>
      {secret && (
        <SecretOnce
          title="Its client secret, shown this once"
          label={`the client secret of ${app.name}`}
          value={secret}
          note="Copy it now into the app's configuration: identity keeps only its fingerprint and cannot show it again. A lost secret is replaced by rotating it on the app's page."
        />
      )}
      <div className="actions">
        <Link to="application" params={{ id: app.id }} className="button typed">
          Open {app.name}
        </Link>
        <button type="button" className="secondary" onClick={again}>
          Register another
        </button>
      </div>
    </>
  );
}
