import type { ApiErrorBody, ApiTokenPair } from './types.ts';
import { readSession, writeSession } from './session.ts';
import { sharedRefresh } from './shared-refresh.ts';

/** A refused request, with the service's code (VALIDATION_ERROR, PRECONDITION_FAILED, ...) and message. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A refused answer as an ApiError: the platform's `{error: {code, message}}`, else its status alone. */
export async function errorOf(response: Response): Promise<ApiError> {
  let body: Partial<ApiErrorBody> = {};
  try {
    body = (await response.json()) as ApiErrorBody;
  } catch {
    // Not the service's error shape (a proxy's page): the status says enough.
  }
  return new ApiError(
    response.status,
    body.error?.code ?? `HTTP_${response.status}`,
    body.error?.message ?? `the request failed (${response.status})`,
  );
}

let onSignedOut: () => void = () => {};

/** Called when the session ends (refresh refused): the app goes back to the sign-in screen. */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

/** Trades the refresh token for a new pair, one tab at a time (shared-refresh.ts). */
const refresh = sharedRefresh<ApiTokenPair>({
  lock: 'dashboard.session.refresh',
  channel: 'dashboard.session',
  read: readSession,
  write: writeSession,
  exchange: async (session) => {
    const r = await fetch('/api/v1/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: session.refreshToken }),
    });
    return r.ok ? ((await r.json()) as ApiTokenPair) : undefined;
  },
});

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Calls the service's API with the session's token; an expired access token is refreshed once. */
export async function api<T>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<{ data: T; headers: Headers }> {
  const response = await respond(method, path, options);
  const data = response.status === 204 ? (undefined as T) : ((await response.json()) as T);
  return { data, headers: response.headers };
}

/** A file the service answers (a dashboard's PNG or PDF), read with the session's token, for a download. */
export async function apiFile(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<{ blob: Blob; headers: Headers }> {
  const response = await respond(method, path, { ...options, headers: { accept: '*/*', ...options.headers } });
  return { blob: await response.blob(), headers: response.headers };
}

/** The service's answer to a request with the session's token, refreshed once if expired; not 2xx is an ApiError. */
async function respond(method: string, path: string, options: RequestOptions): Promise<Response> {
  let used: string | undefined;
  const send = () => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const session = readSession();
    used = session?.accessToken;
    if (session) headers.authorization = `Bearer ${session.accessToken}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`/api/v1${path}`, {
      method,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  };
  let response = await send();
  if (response.status === 401 && readSession()) {
    if (await refresh(used)) response = await send();
    else {
      writeSession(undefined);
      onSignedOut();
    }
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export const get = async <T>(path: string, signal?: AbortSignal) =>
  (await api<T>('GET', path, signal ? { signal } : {})).data;
