import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup, RefusedDestinationError, type AddressPolicy } from './address-policy.ts';

export interface OutboundPost {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface OutboundAnswer {
  status: number;
  /** The answer's headers, as node:http gives them (names in lower case). */
  headers: IncomingHttpHeaders;
  /** The first `maxAnswerBytes` of the answer's body: enough to show why a receiver refused. */
  text: string;
  retryAfterMs?: number;
}

export interface OutboundOptions {
  /** One limit for resolving the host, connecting, sending and reading the answer. */
  timeoutMs: number;
  userAgent: string;
  /** Ends the request early (a service shutting down): rejected with an OutboundError whose `stopped` is true. */
  signal?: AbortSignal;
  /** How much of the answer's body is read; the rest is not waited for. 16 KB by default. */
  maxAnswerBytes?: number;
}

/** Why a POST did not get an answer: refused by the policy, unreachable, too slow or stopped. The message is safe to show. */
export class OutboundError extends Error {
  readonly refused: boolean;
  readonly stopped: boolean;
  constructor(message: string, refused = false, stopped = false) {
    super(message);
    this.name = 'OutboundError';
    this.refused = refused;
    this.stopped = stopped;
  }
}

const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * One POST to a URL a person named (a webhook, a notification channel, an event destination): the host is resolved
 * and checked by the policy, the checked address is pinned for the connection (no second lookup that could answer
 * differently), redirects are not followed, one time limit covers the lookup, connecting, sending and the answer,
 * and only the first `maxAnswerBytes` of the answer are read.
 */
export async function guardedPost(
  post: OutboundPost,
  policy: AddressPolicy,
  options: OutboundOptions,
): Promise<OutboundAnswer> {
  let url: URL;
  try {
    url = new URL(post.url);
  } catch {
    throw new OutboundError('the URL is not a valid absolute URL', true);
  }
  const cap = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  const { signal } = options;
  if (signal?.aborted) throw new OutboundError('stopped while sending', false, true);
  let req: ClientRequest | undefined;
  let settled = false;
  let cancel: (err: OutboundError) => void = () => {};
  const cancelled = new Promise<never>((_, reject) => {
    cancel = (err) => {
      req?.destroy();
      reject(err);
    };
  });
  // Nothing awaits `cancelled` once the POST settled: keep its late rejection from being unhandled.
  cancelled.catch(() => {});
  const timer = setTimeout(
    () => cancel(new OutboundError(`no answer within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  const onAbort = () => cancel(new OutboundError('stopped while sending', false, true));
  signal?.addEventListener('abort', onAbort, { once: true });
  const done = () => {
    settled = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };

  const resolveAddress = async () => {
    try {
      policy.checkUrl(url);
      return await policy.resolve(url.hostname);
    } catch (err) {
      // A host without an address now is unreachable, like a refused connection, not refused by the policy.
      if (err instanceof RefusedDestinationError) throw new OutboundError(err.message, !err.unresolved);
      throw err;
    }
  };

  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  try {
    const address = await Promise.race([resolveAddress(), cancelled]);
    return await Promise.race([
      cancelled,
      new Promise<OutboundAnswer>((resolve, reject) => {
        if (settled) return;
        req = send(
          url,
          {
            method: 'POST',
            lookup: pinnedLookup(address) as never,
            headers: {
              'user-agent': options.userAgent,
              'content-length': String(Buffer.byteLength(post.body)),
              ...post.headers,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            const finish = () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                text: Buffer.concat(chunks).subarray(0, cap).toString('utf8'),
                ...optionalRetryAfter(res.headers['retry-after']),
              });
            res.on('data', (chunk: Buffer) => {
              chunks.push(chunk);
              size += chunk.length;
              if (size >= cap) {
                // Enough to say why: the rest of a large answer is not waited for.
                finish();
                res.destroy();
              }
            });
            res.on('end', finish);
            res.on('error', (err) => reject(new OutboundError(`network error: ${err.message}`)));
          },
        );
        req.on('error', (err: NodeJS.ErrnoException) =>
          reject(new OutboundError(`network error: ${err.code ?? err.message}`)),
        );
        req.end(post.body);
      }),
    ]);
  } finally {
    done();
  }
}

function optionalRetryAfter(value: string | string[] | undefined): { retryAfterMs?: number } {
  const ms = retryAfter(value);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

function retryAfter(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
