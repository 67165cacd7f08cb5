import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup, RefusedDestinationError, type AddressPolicy } from './address-policy.ts';

export interface OutboundPost {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface OutboundAnswer {
  status: number;
  /** The first `MAX_ANSWER_BYTES` of the answer's body: enough to show why a receiver refused. */
  text: string;
  retryAfterMs?: number;
}

/** Why a POST did not get an answer: refused by the policy, unreachable, or too slow. The message is safe to show. */
export class OutboundError extends Error {
  readonly refused: boolean;
  constructor(message: string, refused = false) {
    super(message);
    this.name = 'OutboundError';
    this.refused = refused;
  }
}

const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * One POST to a URL a person named (a webhook, a notification channel): the host is resolved and checked by the
 * policy, the checked address is pinned for the connection (no second lookup that could answer differently),
 * redirects are not followed, and one time limit covers connecting, sending and the answer.
 */
export async function guardedPost(
  post: OutboundPost,
  policy: AddressPolicy,
  options: { timeoutMs: number; userAgent: string },
): Promise<OutboundAnswer> {
  let url: URL;
  try {
    url = new URL(post.url);
  } catch {
    throw new OutboundError('the URL is not a valid absolute URL', true);
  }
  let address: Awaited<ReturnType<AddressPolicy['resolve']>>;
  try {
    policy.checkUrl(url);
    address = await policy.resolve(url.hostname);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw new OutboundError(err.message, true);
    throw err;
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      req.destroy();
      reject(new OutboundError(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const req = send(
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
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_ANSWER_BYTES) return;
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8'),
            retryAfterMs: retryAfter(res.headers['retry-after']),
          });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(new OutboundError(`network error: ${err.message}`));
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new OutboundError(`network error: ${err.code ?? err.message}`));
    });
    req.end(post.body);
  });
}

function retryAfter(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
