import { createServer, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RefusedDestinationError, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { forwardHttp } from './egress-forward.ts';
import type { EgressScope, Refusal } from './egress-scope.ts';
import { openTunnel } from './egress-tunnel.ts';

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`, for the browser context's proxy setting. */
  server: string;
  /** Requests refused so far, oldest first. */
  refusals: Refusal[];
  close(): Promise<void>;
}

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

  const refuse = (target: string, err: unknown): string => {
    const reason =
      err instanceof RefusedDestinationError ? err.message : `connection failed: ${(err as Error).message}`;
    if (err instanceof RefusedDestinationError && refusals.length < 1000) refusals.push({ target, reason });
    return reason;
  };

  const scope: EgressScope = { policy, refuse, sockets, upstreams };
  const server = createServer((req, res) => {
    void forwardHttp(scope, req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => openTunnel(scope, req, client, head));
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
