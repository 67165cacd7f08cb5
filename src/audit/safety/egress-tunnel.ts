import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { REFUSED_HEADER, UNREACHABLE_HEADER, type EgressScope } from './egress-scope.ts';

/**
 * Opens a CONNECT tunnel (HTTPS, WebSockets, and plain http from Playwright's own fetch) to the address the policy
 * checked, or answers 403 (400 for a bad authority).
 */
export function openTunnel(scope: EgressScope, req: IncomingMessage, client: Socket, head: Buffer): void {
  const { policy, refuse, sockets } = scope;
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
      let open = false;
      upstream.once('connect', () => {
        open = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      // Once open, the tunnel carries the site's bytes: an answer of ours there would be read as the site's.
      upstream.on('error', (err) =>
        open ? client.destroy() : failTunnel(client, '502 Bad Gateway', UNREACHABLE_HEADER, refuse(authority, err)),
      );
      client.on('close', () => upstream.destroy());
    },
    // Named `host:port`, all a CONNECT says: the tunnel may have been for https or (Playwright's fetch) plain http.
    (err: unknown) => failTunnel(client, '403 Forbidden', REFUSED_HEADER, refuse(authority, err)),
  );
}

/**
 * Answers a CONNECT that opened no tunnel with the marker and reason forwardHttp's answers carry. A browser only learns
 * that the tunnel failed, but Playwright's own fetch (`route.fetch`, which sends a session's headers) tunnels plain
 * http too and hands this answer on as the site's: without the marker the page auditor would report the proxy's 403
 * as the site's. No length: the reason is read to the connection's end.
 */
function failTunnel(client: Socket, status: string, marker: string, reason: string): void {
  client.end(
    `HTTP/1.1 ${status}\r\n${marker}: ${encodeURIComponent(reason)}\r\ncontent-type: text/plain; charset=utf-8\r\n\r\n${reason}`,
  );
}
