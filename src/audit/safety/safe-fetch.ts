import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup, type AddressPolicy } from '../../kit/outbound/address-policy.ts';

export interface FetchedText {
  url: string;
  status: number;
  contentType: string;
  body: string;
}

export interface SafeFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  userAgent?: string;
}

/**
 * GET for the crawler's own reads (robots.txt, sitemaps): every hop's host resolved and checked by the
 * policy, the checked address pinned for the connection, redirects followed by hand so each is checked,
 * the body cut at maxBytes. Answers null when the resource is missing or refused; never throws.
 */
export async function safeFetchText(
  url: string,
  policy: AddressPolicy,
  options: SafeFetchOptions,
): Promise<FetchedText | null> {
  let current = new URL(url);
  for (let hop = 0; hop <= (options.maxRedirects ?? 5); hop++) {
    try {
      policy.checkUrl(current);
      const address = await policy.resolve(current.hostname);
      const answer = await getOnce(current, address, options);
      if (answer.status >= 300 && answer.status < 400 && answer.location) {
        current = new URL(answer.location, current);
        continue;
      }
      return { url: current.href, status: answer.status, contentType: answer.contentType, body: answer.body };
    } catch {
      // Refused, unreachable or malformed: to the crawler all mean "no robots.txt / no sitemap here".
      return null;
    }
  }
  return null;
}

function getOnce(
  url: URL,
  address: { address: string; family: number },
  options: SafeFetchOptions,
): Promise<{ status: number; contentType: string; location: string | null; body: string }> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        lookup: pinnedLookup(address) as never,
        headers: { 'user-agent': options.userAgent ?? 'platform-audit', accept: '*/*' },
        timeout: options.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            return;
          }
          chunks.push(chunk);
        });
        const finish = () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            location: typeof res.headers.location === 'string' ? res.headers.location : null,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}
