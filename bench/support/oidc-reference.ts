/**
 * The library's own ceiling for the identity benchmark: a minimal oidc-provider 9 as its documentation configures it —
 * the provider's built-in in-memory adapter, no hooks, no middleware of ours, one client_credentials client, opaque
 * access tokens — listening on its own port in the benchmark's server process. What the identity service does on top
 * (PostgreSQL, the contract's answer shapes, the active checks) is measured against this.
 */
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

export interface OidcReference {
  port: number;
  clientId: string;
  secret: string;
  close(): Promise<void>;
}

export async function startOidcReference(port: number): Promise<OidcReference> {
  const clientId = 'reference';
  const secret = 'reference-secret-that-is-long-enough-for-hs256';
  const provider = new Provider(`http://localhost:${port}`, {
    clients: [
      {
        client_id: clientId,
        client_secret: secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    scopes: ['events:write'],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
    },
    routes: { token: '/oauth/token', introspection: '/oauth/introspect' },
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    clientId,
    secret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
