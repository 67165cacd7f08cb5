import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { ORGANIZATION_PARAM, type OrganizationTokens } from '../organizations/token-scope.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { tokenExchangeGrant, type GrantPlugin } from '../oidc/grants.ts';
import { ACCESS_TOKEN_TYPE, API_KEY_TOKEN_TYPE, JWT_BEARER, TOKEN_EXCHANGE } from '../oidc/protocol.ts';
import type { FastGrant } from '../oidc/fast-token.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import { apiKeyExchange, assertedPrincipal, jwtBearerGrant, type CredentialGrantDeps } from '../credentials/grants.ts';
import { issueForApiKey, issueForAssertion } from '../credentials/fast-grants.ts';
import type { CredentialLookup } from '../credentials/lookup.ts';
import { DELEGATION_PARAMS, exchangeForAgent } from '../delegation/exchange.ts';
import type { ExchangeWrites } from '../delegation/exchange-writes.ts';
import { issueForAgent } from '../delegation/fast-exchange.ts';

export interface GrantDeps {
  db: Database;
  accounts: PrincipalDirectory;
  clients: ClientStore;
  scopes: ReadonlySet<string>;
  issuer: string;
  tokenEndpoint: string;
  /** API keys, key pairs and spent jtis: one for the service, so the provider's grants and the fast route batch together. */
  credentials: CredentialLookup;
  /** IDENTITY_DELEGATION_MAX_DEPTH: the most agents one delegation chain may hold. */
  delegationMaxDepth: number;
  /** The delegation exchange's lookups and links: one for the service, so the provider's grant and the fast route batch together. */
  exchangeWrites: ExchangeWrites;
}

/**
 * The grants the features add to the provider's token endpoint, for one provider (`organizations` is its own): token
 * exchange, whose subject an API key (credentials) or a person's access token with an agent's actor token (delegation)
 * is, and jwt-bearer, a principal's key-pair assertion (credentials).
 */
export function tokenEndpointGrants(deps: GrantDeps, organizations: OrganizationTokens): GrantPlugin[] {
  const credentials: CredentialGrantDeps = { ...deps, knownScopes: deps.scopes, organizations };
  const delegation = {
    db: deps.db,
    accounts: deps.accounts,
    clients: deps.clients,
    organizations,
    writes: deps.exchangeWrites,
    knownScopes: deps.scopes,
    maxDepth: deps.delegationMaxDepth,
    approvalPage: new URL('/agents', deps.issuer).href,
    verifyActorAssertion: (assertion: string, ip: string | undefined) => assertedPrincipal(credentials, assertion, ip),
  };
  return [
    tokenExchangeGrant(
      new Map([
        [API_KEY_TOKEN_TYPE, apiKeyExchange(credentials)],
        [ACCESS_TOKEN_TYPE, (ctx) => exchangeForAgent(ctx, delegation)],
      ]),
      ['scope', ORGANIZATION_PARAM, ...DELEGATION_PARAMS],
    ),
    jwtBearerGrant(credentials),
  ];
}

/**
 * The same grants answered by the token endpoint's fast route (oidc/fast-token.ts), by grant type: a token exchange by its
 * subject token's type (an API key, or a person's access token with an agent's actor token).
 */
export function fastGrants(
  deps: GrantDeps & { holder: ProviderHolder; onIssued(grantType: string): void },
): ReadonlyMap<string, FastGrant> {
  const delegation = {
    ...deps,
    writes: deps.exchangeWrites,
    knownScopes: deps.scopes,
    maxDepth: deps.delegationMaxDepth,
  };
  return new Map<string, FastGrant>([
    [
      TOKEN_EXCHANGE,
      (request, params) =>
        params.subject_token_type === ACCESS_TOKEN_TYPE
          ? issueForAgent(delegation, request, params)
          : issueForApiKey(deps, request, params),
    ],
    [JWT_BEARER, (request, params) => issueForAssertion(deps, request, params)],
  ]);
}
