import { Suspense, lazy, useCallback, useEffect, useState } from 'react';
import { api, get, whenSignedOut } from './api/client.ts';
import { SESSION_KEY, readSession, takeLoginFragment, writeSession } from './api/session.ts';
import type { ApiSetupResult, ApiSetupStatus, ApiUser } from './api/types.ts';
import { Link, navigate, usePath } from './app/router.tsx';
import { useScreen } from './app/useTitle.ts';
import { SetupScreen } from './auth/SetupScreen.tsx';
import { SignInScreen } from './auth/SignInScreen.tsx';
import { atLeast } from './app/roles.ts';
import { DataSourcesScreen } from './datasources/DataSourcesScreen.tsx';
import { HomeScreen } from './home/HomeScreen.tsx';
import { LoadBoundary } from './dashboards/LoadBoundary.tsx';

// The editor (CodeMirror) loads when the screen is opened, so the first screen stays small.
const SqlScreen = lazy(() => import('./sql/SqlScreen.tsx'));
// Dashboards (and, from their widgets, ECharts and the Markdown renderer) load when first opened too.
const DashboardRoutes = lazy(() => import('./dashboards/routes.tsx'));
// Users, tenants and the audit log: only admins and owners open them, so they load when first needed.
const AdminScreen = lazy(() => import('./admin/AdminScreen.tsx'));

type State =
  | { kind: 'loading' }
  | { kind: 'setup'; status: ApiSetupStatus }
  | { kind: 'signed-out'; notice?: string; error?: string }
  | { kind: 'signed-in'; me: ApiUser }
  | { kind: 'unreachable' };

const fragment = takeLoginFragment();

/** What the sign-in screen says after the first run: with identity linked, which password the owner signs in with. */
function setupNotice(r: ApiSetupResult): string {
  const made = `${r.user.email} is now the owner of ${r.tenant.name}.`;
  if (r.platformAccount === 'created') return `${made} Sign in with the platform account and the password you chose.`;
  if (r.platformAccount === 'existing')
    return `${made} The platform already had an account with this email: sign in with the platform account and its own password.`;
  return `${made} Sign in to continue.`;
}

// A dashboard's public link: no session, no sign-in, one chunk of its own.
const PublicDashboard = lazy(() => import('./public/PublicDashboard.tsx'));
const PUBLIC_LINK = /^\/public\/([^/]+)$/;

/** A public link opens the shared dashboard alone; every other address is the signed-in app. */
export function App() {
  const shared = PUBLIC_LINK.exec(location.pathname);
  if (shared) {
    return (
      <>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="banner">
          <p className="product">Dashboards</p>
        </header>
        <main id="main" tabIndex={-1}>
          <LoadBoundary>
            <Suspense fallback={<p role="status">Loading the dashboard…</p>}>
              <PublicDashboard token={shared[1]!} />
            </Suspense>
          </LoadBoundary>
        </main>
      </>
    );
  }
  return <MemberApp />;
}

/** The app's frame: a skip link, the banner and the main region every screen renders into. */
function MemberApp() {
  const [state, setState] = useState<State>({ kind: 'loading' });

  const load = useCallback(async () => {
    try {
      if (readSession()) {
        setState({ kind: 'signed-in', me: await get<ApiUser>('/auth/me') });
        return;
      }
      const status = await get<ApiSetupStatus>('/setup');
      setState(
        status.setupRequired
          ? { kind: 'setup', status }
          : { kind: 'signed-out', ...(fragment.error ? { error: fragment.error } : {}) },
      );
    } catch {
      setState(readSession() ? { kind: 'unreachable' } : { kind: 'signed-out' });
    }
  }, []);

  useEffect(() => {
    whenSignedOut(() => setState({ kind: 'signed-out', notice: 'Your session ended. Sign in again.' }));
    void load();
  }, [load]);

  // Tabs share the sign-in: signing out in one signs this one out, signing in elsewhere signs this one in.
  useEffect(() => {
    const changed = (e: StorageEvent) => {
      if (e.key !== null && e.key !== SESSION_KEY) return;
      if (!readSession())
        setState((s) =>
          s.kind === 'signed-in' ? { kind: 'signed-out', notice: 'You signed out in another tab.' } : s,
        );
      else if (e.oldValue === null) void load();
    };
    addEventListener('storage', changed);
    return () => removeEventListener('storage', changed);
  }, [load]);

  const signOut = async () => {
    try {
      await api('POST', '/auth/logout');
    } catch {
      // Already ended on the server: forgetting the tokens here is what matters.
    }
    writeSession(undefined);
    navigate('/');
    setState({ kind: 'signed-out', notice: 'You are signed out.' });
  };

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="banner">
        <p className="product">Dashboards</p>
        {state.kind === 'signed-in' && (
          <>
            <nav aria-label="Main">
              <ul>
                <li>
                  <Link href="/">Home</Link>
                </li>
                <li>
                  <Link href="/dashboards">Dashboards</Link>
                </li>
                <li>
                  <Link href="/datasources">Data sources</Link>
                </li>
                {atLeast(state.me, 'editor') && (
                  <li>
                    <Link href="/sql">SQL editor</Link>
                  </li>
                )}
                {atLeast(state.me, 'admin') && (
                  <li>
                    <Link href="/admin/users">Users</Link>
                  </li>
                )}
                {atLeast(state.me, 'owner') && (
                  <li>
                    <Link href="/admin/tenants">Tenants</Link>
                  </li>
                )}
                {atLeast(state.me, 'admin') && (
                  <li>
                    <Link href="/admin/audit">Audit log</Link>
                  </li>
                )}
              </ul>
            </nav>
            <div className="who">
              <span>
                {state.me.name} <span className="role">({state.me.role})</span>
              </span>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </div>
          </>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {state.kind === 'loading' && <p role="status">Loading…</p>}
        {state.kind === 'setup' && (
          <SetupScreen status={state.status} onDone={(r) => setState({ kind: 'signed-out', notice: setupNotice(r) })} />
        )}
        {state.kind === 'signed-out' && <SignInScreen notice={state.notice} error={state.error} />}
        {state.kind === 'unreachable' && <Unreachable retry={load} />}
        {state.kind === 'signed-in' && <SignedIn me={state.me} />}
      </main>
    </>
  );
}

function Unreachable({ retry }: { retry: () => void }) {
  useScreen('Unavailable');
  return (
    <>
      <h1>The service cannot be reached</h1>
      <p role="alert">Check your connection, then try again.</p>
      <button type="button" onClick={retry}>
        Try again
      </button>
    </>
  );
}

function SignedIn({ me }: { me: ApiUser }) {
  const path = usePath();
  if (path === '/dashboards' || path.startsWith('/dashboards/')) {
    return (
      <LoadBoundary key={path}>
        <Suspense fallback={<p role="status">Loading dashboards…</p>}>
          <DashboardRoutes me={me} />
        </Suspense>
      </LoadBoundary>
    );
  }
  if (path.startsWith('/admin/'))
    return (
      <Suspense fallback={<p role="status">Loading…</p>}>
        <AdminScreen me={me} path={path} />
      </Suspense>
    );
  switch (path) {
    case '/datasources':
      return <DataSourcesScreen me={me} />;
    case '/sql':
      return atLeast(me, 'editor') ? (
        <Suspense fallback={<p role="status">Loading the editor…</p>}>
          <SqlScreen me={me} />
        </Suspense>
      ) : (
        <HomeScreen me={me} />
      );
    default:
      return <HomeScreen me={me} />;
  }
}
