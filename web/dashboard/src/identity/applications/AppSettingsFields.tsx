import type { AppType } from '../api.ts';
import { duration, isPublic, signsPeopleIn } from './app-types.ts';
import type { AppDraft } from './draft.ts';

const SCOPE_ABOUT: Record<string, string> = {
  openid: 'sign people in (OpenID Connect)',
  profile: 'their name',
  email: 'their email address',
  offline_access: 'refresh tokens',
  admin: "identity's management API (platform admins only)",
};

/**
 * The settings of an app of one kind, for registering it and for editing it: its name and description, its redirect
 * URIs and the scopes it may ask for, its tokens' lifetimes and how they are handled. Only what the kind has is asked
 * (a machine has no redirect URIs); the identity service checks the rest and says what is wrong.
 */
export function AppSettingsFields({
  type,
  draft,
  scopes,
  onChange,
}: {
  type: AppType;
  draft: AppDraft;
  /** Every scope identity knows (GET /scopes). */
  scopes: readonly string[];
  onChange: (d: AppDraft) => void;
}) {
  const set = <K extends keyof AppDraft>(key: K, value: AppDraft[K]) => onChange({ ...draft, [key]: value });
  const people = signsPeopleIn(type);
  const ttl = (key: 'accessTtl' | 'refreshTtl' | 'codeTtl', id: string, label: string, max: number) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        required
        min={1}
        max={max}
        value={draft[key]}
        aria-describedby={`${id}-hint`}
        onChange={(e) => set(key, e.target.value)}
      />
      <p id={`${id}-hint`} className="hint">
        Seconds{Number(draft[key]) >= 1 ? `: ${duration(Number(draft[key]))}` : ''}.
      </p>
    </div>
  );
  return (
    <>
      <label htmlFor="app-name">Name</label>
      <input
        id="app-name"
        required
        maxLength={200}
        autoComplete="off"
        value={draft.name}
        onChange={(e) => set('name', e.target.value)}
      />
      <label htmlFor="app-description">Description</label>
      <textarea
        id="app-description"
        rows={2}
        maxLength={2000}
        value={draft.description}
        onChange={(e) => set('description', e.target.value)}
      />
      <label htmlFor="app-logo">Logo URL</label>
      <input
        id="app-logo"
        type="url"
        maxLength={2000}
        autoComplete="off"
        value={draft.logoUrl}
        aria-describedby="app-logo-hint"
        onChange={(e) => set('logoUrl', e.target.value)}
      />
      <p id="app-logo-hint" className="hint">
        Shown on the consent page; https.
      </p>
      {people && (
        <>
          <label htmlFor="app-redirects">Redirect URIs</label>
          <textarea
            id="app-redirects"
            rows={3}
            required
            value={draft.redirectUris}
            aria-describedby="app-redirects-hint"
            onChange={(e) => set('redirectUris', e.target.value)}
          />
          <p id="app-redirects-hint" className="hint">
            One a line: where identity sends people back after they sign in. https, or http on localhost
            {type === 'native' ? ' (a native app may use its own reverse-domain scheme)' : ''}; no fragment.
          </p>
        </>
      )}
      <fieldset className="choices">
        <legend>Scopes it may ask for</legend>
        {scopes.map((s) => (
          <label key={s} className="check">
            <input
              type="checkbox"
              checked={draft.scopes.includes(s)}
              onChange={(e) =>
                set('scopes', e.target.checked ? [...draft.scopes, s] : draft.scopes.filter((x) => x !== s))
              }
            />
            <span>
              <code>{s}</code>
              {SCOPE_ABOUT[s] ? ` — ${SCOPE_ABOUT[s]}` : ''}
            </span>
          </label>
        ))}
      </fieldset>
      <fieldset className="choices">
        <legend>Token lifetimes</legend>
        {ttl('accessTtl', 'app-access-ttl', 'Access token', 31_536_000)}
        {people && ttl('refreshTtl', 'app-refresh-ttl', 'Refresh token', 31_536_000)}
        {people && ttl('codeTtl', 'app-code-ttl', 'Authorization code', 3600)}
      </fieldset>
      <fieldset className="choices">
        <legend>Handling</legend>
        {people && (
          <label className="check">
            <input type="checkbox" checked={draft.firstParty} onChange={(e) => set('firstParty', e.target.checked)} />
            First-party: the platform's own app, people are not asked to consent
          </label>
        )}
        {people && (
          <label className="check">
            <input type="checkbox" checked={draft.emailCode} onChange={(e) => set('emailCode', e.target.checked)} />
            Sign-in by emailed code: the sign-in page also offers a code mailed to the person
          </label>
        )}
        {people && (
          <label className="check">
            <input type="checkbox" checked={draft.rotation} onChange={(e) => set('rotation', e.target.checked)} />
            Rotate refresh tokens: each is used once, a reused one ends its family
          </label>
        )}
        {!isPublic(type) && (
          <label className="check">
            <input
              type="checkbox"
              checked={draft.resourceServer}
              onChange={(e) => set('resourceServer', e.target.checked)}
            />
            Resource server: may introspect tokens issued to other apps
          </label>
        )}
        <label className="check">
          <input type="checkbox" checked={draft.dpop} onChange={(e) => set('dpop', e.target.checked)} />
          Require DPoP: every token is bound to a key the app proves it holds
        </label>
      </fieldset>
    </>
  );
}
