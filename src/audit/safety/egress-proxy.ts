import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { pinnedLookup, RefusedDestinationError, type AddressPolicy } from './address-policy.ts';

/** Header on the proxy's own refusal answers, so the page auditor can tell a refused document from a site's 403. */
export const REFUSED_HEADER = 'x-audit-refused';
/** Header on the proxy's answer when the site could not be reached (connection refused, reset, …), so the page
 * auditor records a network failure (retried for a job) instead of the proxy's own 502 as the site's answer. */
export const UNREACHABLE_HEADER = 'x-audit-unreachable';

export interface Refusal {
  url: string;
  reason: string;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`, for the browser context's proxy setting. */
  server: string;
  /** Requests refused so far, oldest first. */
  refusals: Refusal[];
  close(): Promise<void>;
}

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

/**
 * Every request of one audit's browser context goes through this proxy (plain HTTP forwarded, HTTPS and
 * WebSockets tunnelled with CONNECT), which resolves the host itself and connects only to the address it
 * checked. Unlike request interception this also covers redirects, WebSockets, workers and DNS answers that
 * change between check and use. One proxy per context, so refusals are attributed to their audit.
 */
export async function openEgressProxy(policy: AddressPolicy): Promise<EgressProxy> {
  const refusals: Refusal[] = [];
  const sockets = new Set<Socket>();
  const upstreams = new Set<ClientRequest>();

  const refuse = (url: string, err: unknown): string => {
    const reason =
      err instanceof RefusedDestinationError ? err.message : `connection failed: ${(err as Error).message}`;
    if (err instanceof RefusedDestinationError && refusals.length < 1000) refusals.push({ url, reason });
    return reason;
  };

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
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
  };

  const server = createServer((req, res) => {
    void forward(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => {});
    const authority = req.url ?? '';
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(authority);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const host = m[1]!;
    policy.resolve(host).then(
      (address) => {
        const upstream = connect({ host: address.address, port });
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.once('connect', () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
        client.on('close', () => upstream.destroy());
      },
      (err: unknown) => {
        refuse(`https://${authority}/`, err);
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // It serves only its audit's browser context: it must never be what keeps a stopping process alive (seen in CI: an
  // abandoned audit whose browser call never returned left its proxy listening, and the test process never exited).
  server.unref();
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    server: `http://127.0.0.1:${port}`,
    refusals,
    // Once: an audit closes it when aborted and again when it ends.
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        for (const u of upstreams) u.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
