import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ApiUser } from '../api/types.ts';
import { replaceWith } from '../app/router.tsx';
import { CONSOLE_CALLBACK_PATH } from './callback.ts';
import { configureConsole } from './client.ts';
import { consoleConfigQuery, type ConsoleConfig, type Right } from './config.ts';
import {
  CONSOLE_SESSION_KEY,
  forgetConsole,
  maySignInSilently,
  onConsoleSession,
  readConsoleSession,
  writeConsoleSession,
  type ConsoleSession,
} from './session.ts';
import { finishConsoleSignIn, revokeConsoleToken, startConsoleSignIn } from './signin.ts';

/**
 * The console as the shell sees it: `off` where identity does not run beside the dashboard (the app is the dashboards
 * alone); `opening` while the sign-in at identity is under way; `ready` with a session; `signed-out` when there is none
 * (identity wanted a sign-in page, or the session ended): the shell offers the sign-in.
 */
export interface Console {
  status: 'off' | 'opening' | 'ready' | 'signed-out';
  /** Whether the person may open a section: its service is linked and their token carries its scope. */
  holds(right: Right): boolean;
  /** What to tell the person about the console's sign-in, if anything. */
  notice: string | undefined;
  signIn(): void;
}

const OFF: Console = { status: 'off', holds: () => false, notice: undefined, signIn: () => {} };
const ConsoleContext = createContext<Console>(OFF);

export const useConsole = () => useContext(ConsoleContext);

/** Signing out of the dashboard ends the console's sign-in too, and its refresh token at identity. */
export function endConsole(config: ConsoleConfig | undefined): void {
  const session = readConsoleSession();
  if (session && config?.identity) revokeConsoleToken(config.identity, session.refreshToken);
  forgetConsole();
}

function useConsoleSession(): ConsoleSession | undefined {
  const [session, setSession] = useState(readConsoleSession);
  useEffect(() => {
    const update = () => setSession(readConsoleSession());
    const fromOtherTab = (e: StorageEvent) => {
      if (e.key === null || e.key === CONSOLE_SESSION_KEY) update();
    };
    const stop = onConsoleSession(update);
    addEventListener('storage', fromOtherTab);
    return () => {
      stop();
      removeEventListener('storage', fromOtherTab);
    };
  }, []);
  return session;
}

const sameEmail = (a: string | undefined, b: string) => a?.toLowerCase() === b.toLowerCase();

/**
 * Right after the dashboard's sign-in the console signs in at identity without asking again: a silent authorization
 * (prompt=none) in a top-level redirect, since the person already has identity's session; the callback page trades the
 * code for the console's tokens and goes back where the person was. Sections then open by the scopes the token carries.
 */
export function ConsoleProvider({ me, children }: { me: ApiUser; children: ReactNode }) {
  const config = useQuery(consoleConfigQuery()).data;
  const session = useConsoleSession();
  const [notice, setNotice] = useState<string>();
  const [finishing, setFinishing] = useState(() => location.pathname === CONSOLE_CALLBACK_PATH);
  // Decided once, when the signed-in app opens: a session that ends later is offered back, never fetched behind the
  // person's back (a redirect away from a screen they are working on).
  const [silent] = useState(() => !readConsoleSession() && maySignInSilently());
  const identity = config?.identity ?? undefined;

  // Set while rendering, not in an effect: a section's screen drawn in the same pass (its chunk already loaded) calls
  // its service in its own effect, which React runs before this component's.
  if (config) configureConsole(config);

  useEffect(() => {
    if (!identity) {
      if (config && finishing) {
        setFinishing(false);
        replaceWith('/');
      }
      return;
    }
    if (finishing) {
      void finishConsoleSignIn(identity).then(({ returnTo, failure }) => {
        if (failure && !failure.quiet) setNotice(failure.message);
        setFinishing(false);
        replaceWith(returnTo);
      });
      return;
    }
    if (silent && !readConsoleSession()) void startConsoleSignIn(identity, true);
  }, [config, identity, finishing, silent]);

  // The platform account signed in at identity must be the dashboard's person: another one's token is dropped.
  const mismatch = session !== undefined && !sameEmail(session.email, me.email);
  useEffect(() => {
    if (!mismatch) return;
    writeConsoleSession(undefined);
    setNotice(
      `This browser is signed in to the platform with another account than ${me.email}: sign out of the platform, then sign in to it as ${me.email}.`,
    );
  }, [mismatch, me.email]);

  const value = useMemo<Console>(() => {
    if (!identity) return OFF;
    const ready = session !== undefined && !mismatch;
    const scopes = new Set(ready ? session.scope.split(' ') : []);
    return {
      status: ready ? 'ready' : finishing || (silent && !notice) ? 'opening' : 'signed-out',
      holds: (right) => {
        const service = config?.services.find((s) => s.section === right);
        return service !== undefined && scopes.has(service.scope);
      },
      notice,
      signIn: () => {
        setNotice(undefined);
        void startConsoleSignIn(identity, false);
      },
    };
  }, [identity, config, session, mismatch, finishing, silent, notice]);

  return <ConsoleContext value={value}>{children}</ConsoleContext>;
}
