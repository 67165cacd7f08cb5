/**
 * The console's sign-in at identity: an access token for the console's built-in client, its rotating refresh token, and
 * the scopes (rights) it carries. Kept like the dashboard's pair (api/session.ts): in localStorage, so every tab shares
 * one, refreshed one tab at a time (console/client.ts); the strict CSP keeps other scripts off the page.
 */
export interface ConsoleSession {
  accessToken: string;
  refreshToken: string;
  /** The scopes identity granted, space-separated: the person's rights among those asked for. */
  scope: string;
  /** Whose account at identity it is (identity's userinfo): checked against the dashboard's signed-in person. */
  email: string;
}

export const CONSOLE_SESSION_KEY = 'console.session';
/** The authorization under way in this tab: its state, PKCE verifier and the address to come back to. */
const PENDING_KEY = 'console.authorize';
/** When this tab last asked identity silently (prompt=none): asked again only after a while, never in a loop. */
const SILENT_KEY = 'console.silent';
const SILENT_AGAIN_MS = 60_000;

const listeners = new Set<() => void>();

/** Called when this tab's console session changes (another tab's change arrives as a storage event). */
export function onConsoleSession(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function readConsoleSession(): ConsoleSession | undefined {
  const raw = localStorage.getItem(CONSOLE_SESSION_KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as ConsoleSession;
  } catch {
    return undefined;
  }
}

export function writeConsoleSession(session: ConsoleSession | undefined): void {
  if (session) localStorage.setItem(CONSOLE_SESSION_KEY, JSON.stringify(session));
  else localStorage.removeItem(CONSOLE_SESSION_KEY);
  for (const l of listeners) l();
}

export interface PendingAuthorization {
  state: string;
  verifier: string;
  returnTo: string;
  silent: boolean;
}

export function keepPending(pending: PendingAuthorization): void {
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  if (pending.silent) sessionStorage.setItem(SILENT_KEY, String(Date.now()));
}

/** The authorization under way, read once: a callback replayed (Back, reload) finds none. */
export function takePending(): PendingAuthorization | undefined {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as PendingAuthorization;
  } catch {
    return undefined;
  }
}

/** Whether this tab may ask identity silently now: not within a minute of its last silent question. */
export function maySignInSilently(): boolean {
  const last = Number(sessionStorage.getItem(SILENT_KEY) ?? 0);
  return !(Date.now() - last < SILENT_AGAIN_MS);
}

/** Signing out of the dashboard ends the console's session too; the next sign-in asks identity again at once. */
export function forgetConsole(): void {
  sessionStorage.removeItem(SILENT_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  writeConsoleSession(undefined);
}
