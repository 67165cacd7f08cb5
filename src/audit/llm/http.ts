/** Why a provider call failed, in words safe to show a user and to log (the key is scrubbed out). */
export class LlmCallError extends Error {
  readonly status: number | null;
  constructor(message: string, status: number | null) {
    super(message);
    this.name = 'LlmCallError';
    this.status = status;
  }
}

const RETRIED = new Set([429, 500, 502, 503, 504, 529]);

export interface PostOptions {
  /** The provider's name, for messages. */
  provider: string;
  headers: Record<string, string>;
  /** Secrets never to appear in an error message (the API key). */
  secrets: string[];
  /** Deadline of the whole call, retries included (ms since epoch). */
  deadline: number;
  maxRetries: number;
  /** Reads the provider's error message out of an error body. */
  errorMessage: (body: unknown) => string | undefined;
  signal?: AbortSignal | undefined;
}

/** Removes API keys from text a provider sent back (OpenAI echoes part of a wrong key in its 401 message). */
export function scrub(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out.replace(/\b(sk|sk-ant|sk-proj)-[A-Za-z0-9_*.-]{4,}/g, '[redacted]');
}

/** Seconds from a `retry-after` header (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describe(status: number): string {
  if (status === 401) return 'rejected the API key (401)';
  if (status === 403) return 'refused access (403)';
  if (status === 429) return 'limited the rate (429)';
  if (status === 529) return 'is overloaded (529)';
  return `answered ${status}`;
}

/**
 * POSTs JSON to a provider and returns its JSON answer. Retries rate limits, overload and server errors,
 * waiting what `retry-after` asks when it fits before the deadline (else a short backoff), and gives up at
 * the deadline. Never includes the key in an error.
 */
export async function postJson(url: string, body: unknown, options: PostOptions): Promise<unknown> {
  const payload = JSON.stringify(body);
  let lastError: LlmCallError | undefined;
  for (let attempt = 0; attempt <= options.maxRetries; attempt++) {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) break;
    const signals = [AbortSignal.timeout(remaining), ...(options.signal ? [options.signal] : [])];
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...options.headers },
        body: payload,
        signal: AbortSignal.any(signals),
      });
    } catch (e) {
      if (options.signal?.aborted) throw new LlmCallError(`${options.provider}: the audit was stopped`, null);
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new LlmCallError(
        timedOut
          ? `${options.provider} did not answer within the time limit`
          : `${options.provider} could not be reached (${scrub(e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e), options.secrets)})`,
        null,
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new LlmCallError(`${options.provider} did not answer within the time limit`, null);
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.ok) {
      if (json === undefined)
        throw new LlmCallError(`${options.provider} answered ${res.status} with a body that is not JSON`, res.status);
      return json;
    }
    const detail = json !== undefined ? options.errorMessage(json) : undefined;
    lastError = new LlmCallError(
      scrub(`${options.provider} ${describe(res.status)}${detail ? `: ${detail}` : ''}`, options.secrets),
      res.status,
    );
    if (!RETRIED.has(res.status) || attempt === options.maxRetries) break;
    const asked = retryAfterMs(res.headers.get('retry-after'));
    const delay = asked ?? Math.min(8_000, 500 * 2 ** attempt);
    if (Date.now() + delay >= options.deadline) break;
    await wait(delay, options.signal);
  }
  throw lastError ?? new LlmCallError(`${options.provider} did not answer within the time limit`, null);
}
