import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup, RefusedDestinationError, type AddressPolicy } from './address-policy.ts';

export interface GuardedFetchOptions {
  /** One limit for resolving the host, connecting, sending and reading the answer. */
  timeoutMs: number;
  /** Answers longer than this are refused (a discovery document or a key set is a few KB). */
  maxAnswerBytes: number;
}

type FetchInit = {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: unknown;
  signal?: AbortSignal | null;
};

/**
 * A `fetch` for requests to a URL a caller named (an enterprise SSO connector's issuer, its token and key endpoints),
 * as guardedPost is for POSTs: each request's host is resolved and checked by the policy, the checked address is
 * pinned for the connection (no second lookup that could answer an internal address), redirects are not followed, one
 * time limit covers it all, and the answer's size is capped.
 */
export function guardedFetch(policy: AddressPolicy, options: GuardedFetchOptions) {
  return async (input: string, init: FetchInit = {}): Promise<Response> => {
    const url = new URL(input);
    policy.checkUrl(url);
    const address = await policy.resolve(url.hostname);
    const headers: Record<string, string> = {};
    new Headers(init.headers as HeadersInit | undefined).forEach((value, name) => {
      headers[name] = value;
    });
    const body = bodyOf(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>(
      (resolve, reject) => {
        const req = request(
          url,
          {
            method: init.method ?? 'GET',
            headers,
            lookup: pinnedLookup(address) as never,
            ...(init.signal ? { signal: init.signal } : {}),
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (c: Buffer) => {
              size += c.length;
              if (size > options.maxAnswerBytes) {
                // Rejected here, then the connection dropped without an error: an error passed to destroy() once the
                // answer has begun is emitted where nobody listens.
                reject(new Error(`${url.origin} answered more than ${options.maxAnswerBytes} bytes`));
                req.destroy();
                return;
              }
              chunks.push(c);
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
            );
            res.on('error', reject);
          },
        );
        const timer = setTimeout(() => {
          reject(new Error(`${url.origin} gave no answer within ${options.timeoutMs} ms`));
          req.destroy();
        }, options.timeoutMs);
        req.on('close', () => clearTimeout(timer));
        req.on('error', reject);
        req.end(body);
      },
    );
    if (answer.status >= 300 && answer.status < 400)
      throw new RefusedDestinationError(url.hostname, `${url.origin} answered a redirect, which is not followed`);
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
    }
    const empty = answer.status === 204 || answer.status === 205 || answer.status === 304;
    return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: out });
  };
}

function bodyOf(body: unknown): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new Error('guardedFetch sends only text, a form or bytes');
}
