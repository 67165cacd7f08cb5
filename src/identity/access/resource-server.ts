import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';

/** RFC 6749 §2.3.1: HTTP Basic with the client_id and secret each form-encoded. Undefined when malformed. */
function basicClient(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** What the check reads of the app store (oidc/clients.ts's ClientStore, which the OAuth engine above this folder owns). */
export interface ResourceServerApps {
  app(
    clientId: string,
  ): Promise<{ clientId: string; active: boolean; public: boolean; resourceServer: boolean } | undefined>;
  verifySecret(clientId: string, secret: string | undefined, ip?: string): Promise<boolean>;
}

/**
 * The `resource-server` check: HTTP Basic of an active confidential app registered as a resource server, the same
 * apps that may introspect other apps' tokens (oidc/entitlement.ts). 401 otherwise, before the body is read.
 */
export function resourceServerCheck(clients: ResourceServerApps) {
  const refuse = () =>
    new HttpError(
      401,
      'UNAUTHORIZED',
      "send the resource server's client_id and client_secret with HTTP Basic (an app registered with resource_server)",
      { headers: { 'www-authenticate': 'Basic realm="identity"' } },
    );
  return async (_rule: unknown, request: FastifyRequest): Promise<void> => {
    const credentials = basicClient(request.headers.authorization);
    if (!credentials) throw refuse();
    const app = await clients.app(credentials.id);
    if (!app?.active || app.public || !app.resourceServer) throw refuse();
    if (!(await clients.verifySecret(app.clientId, credentials.secret, request.ip))) throw refuse();
  };
}
