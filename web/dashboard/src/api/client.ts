import type { ApiErrorBody, ApiTokenPair } from './types.ts';
import { readSession, writeSession } from './session.ts';

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

let refreshing: Promise<boolean> | undefined;
let onSignedOut: () => void = () => {};

/** Called when the session ends (refresh refused): the app goes back to the sign-in screen. */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

const LOCK = 'dashboard.session.refresh';
const CHANNEL = 'dashboard.session';
/** How long a tab that waited for another tab's refresh gives that tab's new pair to reach it. */
const HANDOVER_MS = 3_000;

/**
 * Watches for a pair another tab has just made (its message on the channel, or the shared store changing). Started
 * before waiting for the lock, so a pair announced meanwhile is not missed.
 */
function watchForNewPair(rejected: string | undefined) {
  const channel = new BroadcastChannel(CHANNEL);
  let arrived: () => void = () => {};
  const seen = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  channel.onmessage = (e: MessageEvent<ApiTokenPair>) => {
    if (e.data?.accessToken && e.data.accessToken !== rejected) {
      writeSession(e.data);
      arrived();
    }
  };
  const onStorage = () => {
    if (readSession()?.accessToken !== rejected) arrived();
  };
  addEventListener('storage', onStorage);
  return {
    wait: (ms: number) => Promise.race([seen, new Promise<void>((resolve) => setTimeout(resolve, ms))]),
    close: () => {
      channel.close();
      removeEventListener('storage', onStorage);
    },
  };
}

/**
 * Trades the refresh token for a new pair. Tabs share the pair, and the service takes a refresh token presented twice
 * as stolen (the whole session ends), so tabs refresh one at a time under a Web Lock. A tab that had to wait for the
 * lock waits too for the other tab's new pair: another tab's write to localStorage reaches this one asynchronously
 * (CI saw a tab read the old pair after taking the lock and present the used refresh token), so the refreshing tab
 * also hands the pair over on a BroadcastChannel.
 */
async function refresh(rejected: string | undefined): Promise<boolean> {
  refreshing ??= (async () => {
    const exchange = async () => {
      const session = readSession();
      if (!session) return false;
      if (session.accessToken !== rejected) return true;
      try {
        const r = await fetch('/api/v1/auth/refresh', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ refreshToken: session.refreshToken }),
        });
        if (!r.ok) return false;
        const pair = (await r.json()) as ApiTokenPair;
        writeSession(pair);
        const channel = new BroadcastChannel(CHANNEL);
        channel.postMessage(pair);
        channel.close();
        return true;
      } catch {
        return false;
      }
    };
    if (!navigator.locks)
      return exchange().finally(() => {
        refreshing = undefined;
      });
    const watch = watchForNewPair(rejected);
    try {
      const alone = await navigator.locks.request(LOCK, { ifAvailable: true }, async (lock) =>
        lock ? { ok: await exchange() } : undefined,
      );
      if (alone) return alone.ok;
      return await navigator.locks.request(LOCK, async () => {
        if (readSession()?.accessToken === rejected) await watch.wait(HANDOVER_MS);
        return exchange();
      });
    } finally {
      watch.close();
      refreshing = undefined;
    }
  })();
  return refreshing;
}

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
  if (!response.ok) {
    let body: Partial<ApiErrorBody> = {};
    try {
      body = (await response.json()) as ApiErrorBody;
    } catch {
      // Not the service's error shape (a proxy's page): the status says enough.
    }
    throw new ApiError(
      response.status,
      body.error?.code ?? `HTTP_${response.status}`,
      body.error?.message ?? `the request failed (${response.status})`,
    );
  }
  const data = response.status === 204 ? (undefined as T) : ((await response.json()) as T);
  return { data, headers: response.headers };
}

export const get = async <T>(path: string, signal?: AbortSignal) =>
  (await api<T>('GET', path, signal ? { signal } : {})).data;
