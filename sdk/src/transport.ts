import type { IngestEvent } from './types.ts';

export interface SendOutcome {
  /** The HTTP status, or 0 when the request failed on the network. */
  status: number;
  /** `Retry-After` in ms (seconds or an HTTP date), when the service sent one. */
  retryAfterMs?: number;
  errors?: { index: number; error: string }[];
  message?: string;
}

/** The longest `Retry-After` honoured: a proxy's date years ahead would otherwise park the events for good. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const date = Number.isFinite(seconds) ? now + seconds * 1000 : Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - now));
}

/** One POST of a batch; `keepalive` lets it finish after the page is gone (bodies up to 64 KB). */
export async function send(
  url: string,
  apiKey: string,
  events: readonly IngestEvent[],
  keepalive = false,
): Promise<SendOutcome> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': apiKey },
      body: JSON.stringify({ events }),
      keepalive,
      credentials: 'omit',
    });
  } catch {
    return { status: 0 };
  }
  const outcome: SendOutcome = { status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')) };
  try {
    const body = (await res.json()) as { errors?: SendOutcome['errors']; error?: unknown };
    if (Array.isArray(body.errors)) outcome.errors = body.errors;
    const error = body.error as { message?: string } | string | undefined;
    outcome.message = typeof error === 'string' ? error : error?.message;
  } catch {
    // A body that is not JSON (a proxy's error page) leaves only the status to act on.
  }
  return outcome;
}
