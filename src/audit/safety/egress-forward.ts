import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { LookupAddress } from 'node:dns';
import { pinnedLookup, RefusedDestinationError } from '../../kit/outbound/address-policy.ts';
import { REFUSED_HEADER, UNREACHABLE_HEADER, type EgressScope } from './egress-scope.ts';

const HOP_BY_HOP = new Set([
  'proxy-authorization',
  'proxy-connection',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Forwards one plain-HTTP request to the address the policy checked, or answers 403 naming the refusal. */
export async function forwardHttp(scope: EgressScope, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { policy, refuse, upstreams } = scope;
  let target: URL;
  let address: LookupAddress;
  try {
    target = new URL(req.url ?? '');
    policy.checkUrl(target);
    if (target.protocol !== 'http:') throw new RefusedDestinationError(target.hostname, 'https must be tunnelled');
    address = await policy.resolve(target.hostname);
  } catch (err) {
    const reason = refuse(req.url ?? '', err);
    res
      .writeHead(403, { 'content-type': 'text/plain; charset=utf-8', [REFUSED_HEADER]: encodeURIComponent(reason) })
      .end(reason);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  const upstream = httpRequest(
    target,
    { method: req.method, headers, lookup: pinnedLookup(address) as never, setHost: false },
    (answer) => {
      const out: Record<string, string | string[]> = {};
      // The proxy's own markers never come from a site.
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined && !HOP_BY_HOP.has(name) && name !== REFUSED_HEADER && name !== UNREACHABLE_HEADER)
          out[name] = value;
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    const reason = refuse(target.href, err);
    if (!res.headersSent)
      res.writeHead(err instanceof RefusedDestinationError ? 403 : 502, {
        'content-type': 'text/plain; charset=utf-8',
        [err instanceof RefusedDestinationError ? REFUSED_HEADER : UNREACHABLE_HEADER]: encodeURIComponent(reason),
      });
    res.end(reason);
  });
  // The browser gave up (page closed, audit cancelled): the site's connection goes too.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  upstreams.add(upstream);
  upstream.on('close', () => upstreams.delete(upstream));
  req.pipe(upstream);
}
