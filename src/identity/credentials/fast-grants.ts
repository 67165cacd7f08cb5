/**
 * The credential grants of grants.ts answered outside the provider's Koa stack, as the client-credentials grant is
 * (fast-client-credentials.ts), for the same reason: the provider's request path cost about as much again as the token
 * itself. The token is the provider's own AccessToken model, made as grants.ts's `issue` makes it (the scopes of
 * credentialScopes, the principal as accountId, its gty) and saved through the same adapter; the answer is the one that
 * grant gives, and the credential's use is noted alike.
 *
 * Only the ordinary request is answered here: an app fastCaller takes, a form body of exactly the grant's parameters and
 * optionally `scope`, a live credential of an active principal, and scopes all allowed. Anything else — an actor token
 * (delegation, whose own fast path is delegation/fast-exchange.ts), an organization, an audience, a refused scope, an unknown or revoked credential, a deactivated principal,
 * an assertion refused or replayed, any error on the way — goes to the provider, which gives its own answer. Nothing is
 * written before that decision but a secret's last-use time (at most once a minute) and, for an assertion, its jti,
 * spent last: an assertion the provider then sees is refused as used, as it would be there.
 */
import type { ParsedUrlQuery } from 'node:querystring';
import type { Database } from '../../kit/db.ts';
import type { AppRecord } from '../apps/record.ts';
import type { ClientStore } from '../oidc/clients.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { fastCaller, fastRouteOrigin, requestedScopes, type FastRequest } from '../oidc/fast-route.ts';
import { ACCESS_TOKEN_TYPE, API_KEY_TOKEN_TYPE, JWT_BEARER, TOKEN_EXCHANGE } from '../oidc/protocol.ts';
import { credentialScopes, spendAssertion, verifyAssertion } from './grants.ts';
import type { CredentialLookup } from './lookup.ts';
import { noteCredentialUse, type UsableCredential } from './store.ts';

export interface FastCredentialGrantDeps {
  holder: ProviderHolder;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  db: Database;
  /** The same lookup the provider's grants read through (assembly/grants.ts), so both batch together. */
  credentials: CredentialLookup;
  /** Every scope the service knows (built-in and IDENTITY_EXTRA_SCOPES). */
  scopes: ReadonlySet<string>;
  /** The issuer and the token endpoint: an assertion's accepted audiences. */
  issuer: string;
  tokenEndpoint: string;
  /** Counts the issued token as the provider's grant.success does (identity_token_requests_total). */
  onIssued(grantType: string): void;
}

type Answer = Promise<Record<string, unknown> | undefined>;

/** An API key exchanged for an access token (RFC 8693 token exchange). */
export async function issueForApiKey(
  deps: FastCredentialGrantDeps,
  request: FastRequest,
  params: ParsedUrlQuery,
): Answer {
  if (!onlyParams(params, 'subject_token', 'subject_token_type')) return undefined;
  if (params.grant_type !== TOKEN_EXCHANGE || params.subject_token_type !== API_KEY_TOKEN_TYPE) return undefined;
  const apiKey = params.subject_token;
  const requested = requestedScopes(params.scope);
  if (typeof apiKey !== 'string' || !apiKey || !requested) return undefined;
  const caller = await fastCaller(deps.clients, request);
  if (!caller) return undefined;
  const credential = await deps.credentials.apiKey(apiKey);
  if (!credential) return undefined;
  return issue(deps, request, caller, credential, requested, true, async () => true);
}

/** A JWT signed with a principal's registered key as the authorization grant (RFC 7523). */
export async function issueForAssertion(
  deps: FastCredentialGrantDeps,
  request: FastRequest,
  params: ParsedUrlQuery,
): Answer {
  if (!onlyParams(params, 'assertion')) return undefined;
  if (params.grant_type !== JWT_BEARER) return undefined;
  const assertion = params.assertion;
  const requested = requestedScopes(params.scope);
  if (typeof assertion !== 'string' || !assertion || !requested) return undefined;
  const caller = await fastCaller(deps.clients, request);
  if (!caller) return undefined;
  // Refused (thrown): the provider verifies it again and answers why.
  const { credential, payload } = await verifyAssertion(deps, assertion);
  return issue(deps, request, caller, credential, requested, false, () =>
    spendAssertion(deps.credentials, credential, payload),
  );
}

function onlyParams(params: ParsedUrlQuery, ...grantParams: string[]): boolean {
  for (const key of Object.keys(params))
    if (key !== 'grant_type' && key !== 'scope' && !grantParams.includes(key)) return false;
  return true;
}

/** grants.ts's `issue`, once nothing is left to refuse; `spend` is the last check, made just before the token is saved. */
async function issue(
  deps: FastCredentialGrantDeps,
  request: FastRequest,
  caller: AppRecord,
  credential: UsableCredential,
  requested: string[],
  exchange: boolean,
  spend: () => Promise<boolean>,
): Answer {
  const principal = await deps.accounts.find(credential.principalId);
  if (!principal?.active || principal.type === 'application') return undefined;
  const provider = deps.holder.current;
  const client = await provider.Client.find(caller.clientId);
  if (!client) return undefined;
  const { scopes, refused } = credentialScopes(
    deps.scopes,
    String(client.scope ?? ''),
    principal,
    credential,
    requested.join(' '),
  );
  if (refused.length || !(await spend())) return undefined;

  // As grants.ts: no grant stands behind the token (the type declarations require a grantId the provider does not).
  type AccessTokenInit = ConstructorParameters<typeof provider.AccessToken>[0];
  const token = new provider.AccessToken({
    client,
    accountId: principal.id,
    scope: scopes.join(' ') || undefined,
    gty: exchange ? 'token_exchange' : 'jwt_bearer',
  } as AccessTokenInit);
  const userAgent = request.headers['user-agent']?.slice(0, 512) || undefined;
  const value = await fastRouteOrigin.run({ ip: request.ip, userAgent }, () => token.save());
  await noteCredentialUse(deps.db, credential.id, request.ip);
  deps.onIssued(exchange ? TOKEN_EXCHANGE : JWT_BEARER);
  return {
    access_token: value,
    token_type: 'Bearer',
    expires_in: token.expiration,
    ...(token.scope ? { scope: token.scope } : {}),
    ...(exchange ? { issued_token_type: ACCESS_TOKEN_TYPE } : {}),
  };
}
