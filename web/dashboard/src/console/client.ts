import { ApiError, errorOf } from '../api/client.ts';
import { sharedRefresh } from '../api/shared-refresh.ts';
import type { ConsoleConfig, ConsoleIdentity, Right } from './config.ts';
import { readConsoleSession, writeConsoleSession, type ConsoleSession } from './session.ts';
import { sessionOf, tokenRequest } from './signin.ts';

let identity: ConsoleIdentity | undefined;
let services: ConsoleConfig['services'] = [];

/** Where the console signs in and what it calls: set once the dashboard has said (console/ConsoleContext.tsx). */
export function configureConsole(config: ConsoleConfig): void {
  identity = config.identity ?? undefined;
  services = config.services;
}

/** Trades the console's refresh token at identity, one tab at a time (the token rotates: a second use ends it). */
const refresh = sharedRefresh<ConsoleSession>({
  lock: 'console.session.refresh',
  channel: 'console.session',
  read: readConsoleSession,
  write: writeConsoleSession,
  exchange: async (session) => {
    if (!identity || !session.refreshToken) return undefined;
    const answer = await tokenRequest(identity, { grant_type: 'refresh_token', refresh_token: session.refreshToken });
    return answer?.access_token ? sessionOf(answer, session) : undefined;
  },
});

/** The API of one service of the platform, called with the console's token; an expired token is refreshed once. */
export interface ServiceClient {
  call<T>(method: string, path: string, options?: { body?: unknown; signal?: AbortSignal }): Promise<T>;
  get<T>(path: string, signal?: AbortSignal): Promise<T>;
  /** A file the service answers (a report), read with the console's token, for a download. */
  blob(path: string, accept: string): Promise<Blob>;
  /**
   * A response read as it comes (server-sent events): fetch rather than EventSource, which cannot send the token. The
   * same refresh on 401; an answer other than 2xx is thrown as ApiError.
   */
  stream(path: string, signal: AbortSignal): Promise<Response>;
}

/**
 * The client of a section's service, at the address `platform start` linked (`<url>/api/v1`). A 401 refreshes the
 * token once; refused again, the console's session ends (the shell offers to sign in to the platform again). Errors are
 * the platform's ApiError, as for the dashboard's own API.
 */
export function serviceClient(section: Right): ServiceClient {
  const respond = async (
    method: string,
    path: string,
    options: { body?: unknown; signal?: AbortSignal; accept?: string } = {},
  ): Promise<Response> => {
    const base = services.find((s) => s.section === section)?.url;
    if (!base) throw new ApiError(503, 'UNAVAILABLE', `the ${section} service does not run beside this console`);
    let used: string | undefined;
    const send = () => {
      const session = readConsoleSession();
      used = session?.accessToken;
      const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
      if (session) headers.authorization = `Bearer ${session.accessToken}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${base}/api/v1${path}`, {
        method,
        headers,
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: options.signal ?? null,
      });
    };
    let response = await send();
    if (response.status === 401 && readConsoleSession()) {
      if (await refresh(used)) response = await send();
      else writeConsoleSession(undefined);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  };
  const call = async <T>(method: string, path: string, options: { body?: unknown; signal?: AbortSignal } = {}) => {
    const response = await respond(method, path, options);
    return (response.status === 204 ? undefined : await response.json()) as T;
  };
  return {
    call,
    get: (path, signal) => call('GET', path, signal ? { signal } : {}),
    blob: async (path, accept) => (await respond('GET', path, { accept })).blob(),
    stream: (path, signal) => respond('GET', path, { signal, accept: 'text/event-stream' }),
  };
}
