import type { ParsedUrlQuery } from 'node:querystring';
import type { ClientStore } from './clients.ts';
import type { ProviderHolder } from './mount.ts';
import { fastCaller, fastRouteOrigin, requestedScopes, type FastRequest } from './fast-route.ts';

export interface FastClientCredentialsDeps {
  holder: ProviderHolder;
  clients: ClientStore;
  /** Every scope the service knows (built-in and IDENTITY_EXTRA_SCOPES). */
  scopes: ReadonlySet<string>;
  /** Counts the issued token as the provider's grant.success does (identity_token_requests_total). */
  onIssued(grantType: string): void;
}

/**
 * The client-credentials grant answered outside the provider's Koa stack, for speed (issue 14; the route is fast-token.ts).
 * The provider stays the issuer: the token is the provider's own ClientCredentials model, made as its grant handler makes
 * it (the client from Client.find, the scope, its lifetime from the ttl setting, its extra claims from extraTokenClaims)
 * and saved through the same adapter, so it is stored, sealed and batched exactly as a token the provider's endpoint
 * issues, and the answer is the provider's token response.
 *
 * Only the ordinary request is answered here: HTTP Basic of an active confidential app allowed client_credentials and
 * not bound to DPoP, a form body of `grant_type=client_credentials` and optionally `scope` whose every scope is known and
 * allowed to the app, nothing else. Every other request — a wrong secret, a refused scope, an organization, a resource,
 * a DPoP proof, extra or duplicate parameters, a browser's Origin, any error on the way (the database being down) — is
 * handed to the provider untouched, so every error answer stays the provider's. Nothing is written before that decision
 * but a secret's last-use time (at most once a minute, clients.ts).
 */
export async function issueClientCredentials(
  deps: FastClientCredentialsDeps,
  request: FastRequest,
  params: ParsedUrlQuery,
): Promise<Record<string, unknown> | undefined> {
  for (const key of Object.keys(params)) if (key !== 'grant_type' && key !== 'scope') return undefined;
  if (params.grant_type !== 'client_credentials') return undefined;
  const requested = requestedScopes(params.scope);
  if (!requested) return undefined;
  const caller = await fastCaller(deps.clients, request);
  // What the provider's validateClientScope and our extraTokenClaims would refuse is left to them, so they refuse it.
  if (!caller || !requested.every((s) => deps.scopes.has(s) && caller.allowedScopes.includes(s))) return undefined;

  const provider = deps.holder.current;
  const client = await provider.Client.find(caller.clientId);
  if (!client) return undefined;
  const token = new provider.ClientCredentials({ client, scope: requested.join(' ') || undefined });
  const userAgent = request.headers['user-agent']?.slice(0, 512) || undefined;
  const value = await fastRouteOrigin.run({ ip: request.ip, userAgent }, () => token.save());
  deps.onIssued('client_credentials');
  // oidc-provider's buildTokenResponse, in its order, undefined members left out by JSON.stringify.
  return {
    access_token: value,
    expires_in: token.expiration,
    scope: token.scope || undefined,
    token_type: token.tokenType,
  };
}
