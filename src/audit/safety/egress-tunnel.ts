import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { EgressScope } from './egress-scope.ts';

/** Opens a CONNECT tunnel (HTTPS, WebSockets) to the address the policy checked, or answers 403 (400 for a bad authority). */
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
}
