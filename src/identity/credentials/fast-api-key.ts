import type { ParsedUrlQuery } from 'node:querystring';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { ClientStore } from '../oidc/clients.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { fastRouteOrigin } from '../oidc/fast-route.ts';
import { fastCaller, requestedScopes } from '../oidc/fast-client-credentials.ts';
import { API_KEY_TOKEN_TYPE, credentialScopes, TOKEN_EXCHANGE } from './grants.ts';
import type { CredentialLookup } from './lookup.ts';
import { noteCredentialUse } from './store.ts';

export interface FastApiKeyDeps {
  holder: ProviderHolder;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  db: Database;
  /** The same lookup the provider's grant reads through (provider.ts), so both batch together. */
  credentials: CredentialLookup;
  /** Every scope the service knows (built-in and IDENTITY_EXTRA_SCOPES). */
  scopes: ReadonlySet<string>;
  /** Counts the issued token as the provider's grant.success does (identity_token_requests_total). */
  onIssued(grantType: string): void;
}

const ISSUED_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * An API key exchanged for an access token (RFC 8693, grants.ts) answered outside the provider's Koa stack, as the
 * client-credentials grant is (fast-client-credentials.ts), for the same reason: the provider's request path cost about
 * as much again as the token itself. The token is the provider's own AccessToken model, made as grants.ts's `issue`
 * makes it (the scopes of credentialScopes, the principal as accountId, gty token_exchange) and saved through the same
 * adapter; the answer is the one that grant gives.
 *
 * Only the ordinary request is answered here: an app fastCaller takes, a form body of exactly `grant_type` (token
 * exchange), `subject_token`, `subject_token_type` (an API key) and optionally `scope`, a live key of an active
 * principal, and scopes all allowed. Anything else — an actor token (delegation), an organization, an audience, a refused
 * scope, an unknown or revoked key, a deactivated principal, any error on the way — goes to the provider, which gives
 * its own answer. Nothing is written before that decision but a secret's last-use time (at most once a minute).
 */
export async function issueForApiKey(deps: FastApiKeyDeps, request: FastifyRequest, params: ParsedUrlQuery): Promise<Record<string, unknown> | undefined> {
  for (const key of Object.keys(params)) if (key !== 'grant_type' && key !== 'subject_token' && key !== 'subject_token_type' && key !== 'scope') return undefined;
  if (params.grant_type !== TOKEN_EXCHANGE || params.subject_token_type !== API_KEY_TOKEN_TYPE) return undefined;
  const apiKey = params.subject_token;
  const requested = requestedScopes(params.scope);
  if (typeof apiKey !== 'string' || !apiKey || !requested) return undefined;
  const caller = await fastCaller(deps.clients, request);
  if (!caller) return undefined;
  const credential = await deps.credentials.apiKey(apiKey);
  if (!credential) return undefined;
  const principal = await deps.accounts.find(credential.principalId);
  if (!principal?.active) return undefined;
  const provider = deps.holder.current;
  const client = await provider.Client.find(caller.clientId);
  if (!client) return undefined;
  const { scopes, refused } = credentialScopes(deps.scopes, String(client.scope ?? ''), principal, credential, requested.join(' '));
  if (refused.length) return undefined;

  // As grants.ts: no grant stands behind the token (the type declarations require a grantId the provider does not).
  type AccessTokenInit = ConstructorParameters<typeof provider.AccessToken>[0];
  const token = new provider.AccessToken({ client, accountId: principal.id, scope: scopes.join(' ') || undefined, gty: 'token_exchange' } as AccessTokenInit);
  const userAgent = request.headers['user-agent']?.slice(0, 512) || undefined;
  const value = await fastRouteOrigin.run({ ip: request.ip, userAgent }, () => token.save());
  await noteCredentialUse(deps.db, credential.id, request.ip);
  deps.onIssued(TOKEN_EXCHANGE);
  return {
    access_token: value,
    token_type: 'Bearer',
    expires_in: token.expiration,
    ...(token.scope ? { scope: token.scope } : {}),
    issued_token_type: ISSUED_TOKEN_TYPE,
  };
}
