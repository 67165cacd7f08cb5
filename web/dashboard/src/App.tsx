import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { api, get, whenSignedOut } from './api/client.ts';
import { SESSION_KEY, readSession, takeLoginFragment, writeSession } from './api/session.ts';
import type { ApiMe, ApiSetupResult, ApiSetupStatus, ApiUser } from './api/types.ts';
import { BannerMenu } from './app/BannerMenu.tsx';
import { LoadBoundary } from './app/LoadBoundary.tsx';
import { NotAllowed } from './app/NotAllowed.tsx';
import { PictureFrame } from './app/PictureFrame.tsx';
import { atLeast } from './app/roles.ts';
import { Navigation } from './app/Navigation.tsx';
import { navigate, usePath } from './app/router.tsx';
import { ROUTES, matchRoute, type Match, type MayOpen } from './app/routes.ts';
import { PRODUCT, PUBLIC_PRODUCT, useScreen } from './app/useTitle.ts';
import { SetupScreen } from './auth/SetupScreen.tsx';
import { SignInScreen } from './auth/SignInScreen.tsx';
import { keys } from './data/keys.ts';
import { ConsoleProvider, endConsole, useConsole } from './console/ConsoleContext.tsx';
import { CONSOLE_CALLBACK_PATH } from './console/callback.ts';
import type { ConsoleConfig } from './console/config.ts';

type Session = { kind: 'setup'; status: ApiSetupStatus } | { kind: 'signed-out' } | { kind: 'signed-in'; me: ApiMe };

const fragment = takeLoginFragment();

/**
 * Who this tab is. With a stored pair: the signed-in person (a failure means the service cannot be reached, unless the
 * pair was refused and dropped meanwhile). Without: the first-run form while no user exists, else the sign-in screen.
 */
async function whoIsHere(): Promise<Session> {
  if (readSession()) {
    try {
      return { kind: 'signed-in', me: await get<ApiMe>('/auth/me') };
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
          <p className="product">{PUBLIC_PRODUCT}</p>
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
      endConsole(client.getQueryData<ConsoleConfig>(keys.console.config));
      setEnded({ notice });
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.session[0] });
    };
    whenSignedOut(() => end('Your session ended. Sign in again.'));
    // Tabs share the sign-in: signing out in one signs this one out, signing in elsewhere signs this one in.
    const changed = (e: StorageEvent) => {
      if (e.key !== null && e.key !== SESSION_KEY) return;
      const current = client.getQueryData<Session>(keys.session);
      if (!readSession()) {
        endConsole(undefined);
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
    endConsole(client.getQueryData<ConsoleConfig>(keys.console.config));
    navigate('home');
    setEnded({ notice: 'You are signed out.' });
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.session[0] });
  };

  const me = !ended && session.data?.kind === 'signed-in' ? session.data.me : undefined;
  // A subscription render's credential draws the dashboard alone: the service says so, the address cannot.
  if (me?.readOnly) return <PictureFrame />;
  const shell = (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="banner">
        <p className="product">{PRODUCT}</p>
        {me && (
          <BannerMenu>
            <MainNavigation me={me} />
            <div className="who">
              <span className="who-name">
                {me.name} <span className="role">({me.role})</span>
              </span>
              <ConsoleSignIn />
              <button type="button" className="secondary" onClick={signOut}>
                Sign out
              </button>
            </div>
          </BannerMenu>
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
  // Signed in, the app is the platform's console too: its sign-in at identity and the sections it opens.
  return me ? <ConsoleProvider me={me}>{shell}</ConsoleProvider> : shell;
}

/** The offer to sign in to the platform, where the console has no session (identity wanted its page, or it ended). */
function ConsoleSignIn() {
  const platform = useConsole();
  if (platform.status !== 'signed-out') return null;
  return (
    <button type="button" className="secondary" onClick={platform.signIn}>
      Sign in to the platform
    </button>
  );
}

/** Whether the person may open a screen: their dashboard role, or their right in a console section. */
function useMayOpen(me: ApiUser): MayOpen {
  const platform = useConsole();
  return (access) => (typeof access === 'object' ? platform.holds(access.right) : atLeast(me, access));
}

function MainNavigation({ me }: { me: ApiUser }) {
  return <Navigation may={useMayOpen(me)} />;
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
  const platform = useConsole();
  const may = useMayOpen(me);
  const found: Match = matchRoute(path) ?? { name: 'home', route: ROUTES.home, params: {} };
  const { route } = found;
  const allowed = route.access !== 'public' && may(route.access);
  const right = typeof route.access === 'object' ? route.access.right : undefined;
  if (platform.status === 'opening' && (right || path === CONSOLE_CALLBACK_PATH))
    return <p role="status">Signing in to the platform…</p>;
  const notice = platform.notice && (
    <p role="alert" className="error">
      {platform.notice}
    </p>
  );
  if (!allowed && route.denied !== 'home')
    return (
      <>
        {notice}
        <NotAllowed me={me} right={right} />
      </>
    );
  const { Screen, loading } = allowed ? route : ROUTES.home;
  return (
    <LoadBoundary key={path}>
      {notice}
      <Suspense fallback={<p role="status">{loading}</p>}>
        <Screen me={me} {...(allowed ? found.params : {})} />
      </Suspense>
    </LoadBoundary>
  );
}
