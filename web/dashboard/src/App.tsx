import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { api, get, whenSignedOut } from './api/client.ts';
import { SESSION_KEY, readSession, takeLoginFragment, writeSession } from './api/session.ts';
import type { ApiSetupResult, ApiSetupStatus, ApiUser } from './api/types.ts';
import { LoadBoundary } from './app/LoadBoundary.tsx';
import { NotAllowed } from './app/NotAllowed.tsx';
import { atLeast } from './app/roles.ts';
import { Link, navigate, usePath } from './app/router.tsx';
import { ROUTES, matchRoute, navigation, type Match } from './app/routes.ts';
import { useScreen } from './app/useTitle.ts';
import { SetupScreen } from './auth/SetupScreen.tsx';
import { SignInScreen } from './auth/SignInScreen.tsx';
import { keys } from './data/keys.ts';

type Session = { kind: 'setup'; status: ApiSetupStatus } | { kind: 'signed-out' } | { kind: 'signed-in'; me: ApiUser };

const fragment = takeLoginFragment();

/**
 * Who this tab is. With a stored pair: the signed-in person (a failure means the service cannot be reached, unless the
 * pair was refused and dropped meanwhile). Without: the first-run form while no user exists, else the sign-in screen.
 */
async function whoIsHere(): Promise<Session> {
  if (readSession()) {
    try {
      return { kind: 'signed-in', me: await get<ApiUser>('/auth/me') };
    } catch (err) {
      if (readSession()) throw err;
      return { kind: 'signed-out' };
    }
  }
  try {
    const status = await get<ApiSetupStatus>('/setup');
    return status.setupRequired ? { kind: 'setup', status } : { kind: 'signed-out' };
  } catch {
    return { kind: 'signed-out' };
  }
}

/** What the sign-in screen says after the first run: with identity linked, which password the owner signs in with. */
function setupNotice(r: ApiSetupResult): string {
  const made = `${r.user.email} is now the owner of ${r.tenant.name}.`;
  if (r.platformAccount === 'created') return `${made} Sign in with the platform account and the password you chose.`;
  if (r.platformAccount === 'existing')
    return `${made} The platform already had an account with this email: sign in with the platform account and its own password.`;
  return `${made} Sign in to continue.`;
}

/** A public link opens the shared dashboard alone; every other address is the signed-in app. */
export function App() {
  const match = matchRoute(location.pathname);
  if (match?.route.access === 'public') {
    const { Screen, loading } = match.route;
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
            <Suspense fallback={<p role="status">{loading}</p>}>
              <Screen {...match.params} />
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
  const client = useQueryClient();
  const session = useQuery({ queryKey: keys.session, queryFn: whoIsHere, staleTime: Number.POSITIVE_INFINITY });
  // Set when the session ends in this tab (signed out here or in another tab, refused, first run done): what to say.
  const [ended, setEnded] = useState<{ notice?: string }>();

  useEffect(() => {
    // The screen of the address opened starts loading beside the question of who is signed in.
    void (matchRoute(location.pathname) ?? { route: ROUTES.home }).route.load().catch(() => {});
  }, []);

  useEffect(() => {
    // Another person may sign in next in this tab: nothing read for this one stays in the cache.
    const end = (notice: string) => {
      setEnded({ notice });
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.session[0] });
    };
    whenSignedOut(() => end('Your session ended. Sign in again.'));
    // Tabs share the sign-in: signing out in one signs this one out, signing in elsewhere signs this one in.
    const changed = (e: StorageEvent) => {
      if (e.key !== null && e.key !== SESSION_KEY) return;
      const current = client.getQueryData<Session>(keys.session);
      if (!readSession()) {
        setEnded((was) => (was || current?.kind !== 'signed-in' ? was : { notice: 'You signed out in another tab.' }));
        client.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.session[0] });
      } else if (e.oldValue === null) {
        setEnded(undefined);
        void client.resetQueries({ queryKey: keys.session });
      }
    };
    addEventListener('storage', changed);
    return () => removeEventListener('storage', changed);
  }, [client]);

  const signOut = async () => {
    try {
      await api('POST', '/auth/logout');
    } catch {
      // Already ended on the server: forgetting the tokens here is what matters.
    }
    writeSession(undefined);
    navigate('home');
    setEnded({ notice: 'You are signed out.' });
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.session[0] });
  };

  const me = !ended && session.data?.kind === 'signed-in' ? session.data.me : undefined;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="banner">
        <p className="product">Dashboards</p>
        {me && (
          <>
            <Navigation me={me} />
            <div className="who">
              <span>
                {me.name} <span className="role">({me.role})</span>
              </span>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </div>
          </>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {ended ? (
          <SignInScreen notice={ended.notice} />
        ) : session.isPending ? (
          <p role="status">Loading…</p>
        ) : session.isError ? (
          <Unreachable retry={() => void session.refetch()} />
        ) : session.data.kind === 'setup' ? (
          <SetupScreen status={session.data.status} onDone={(r) => setEnded({ notice: setupNotice(r) })} />
        ) : session.data.kind === 'signed-out' ? (
          <SignInScreen error={fragment.error} />
        ) : (
          <SignedIn me={session.data.me} />
        )}
      </main>
    </>
  );
}

/** The main navigation: every screen of the route table with a label, for the roles that may open it. */
function Navigation({ me }: { me: ApiUser }) {
  return (
    <nav aria-label="Main">
      <ul>
        {navigation((role) => atLeast(me, role)).map((name) => (
          <li key={name}>
            <Link to={name}>{ROUTES[name].nav}</Link>
          </li>
        ))}
      </ul>
    </nav>
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

/**
 * The screen of the address: its code loads when first opened (a failure to load it, or a fault while drawing it, is
 * said with a way out); an address no screen has opens Home, and a screen above the person's role says so.
 */
function SignedIn({ me }: { me: ApiUser }) {
  const path = usePath();
  const found: Match = matchRoute(path) ?? { name: 'home', route: ROUTES.home, params: {} };
  const { route } = found;
  const allowed = route.access !== 'public' && atLeast(me, route.access);
  if (!allowed && route.denied !== 'home') return <NotAllowed me={me} />;
  const { Screen, loading } = allowed ? route : ROUTES.home;
  return (
    <LoadBoundary key={path}>
      <Suspense fallback={<p role="status">{loading}</p>}>
        <Screen me={me} {...(allowed ? found.params : {})} />
      </Suspense>
    </LoadBoundary>
  );
}
