import Provider, { type Grant } from 'oidc-provider';
import type { JWK } from 'jose';
import type { FastifyBaseLogger } from 'fastify';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { isDatabaseUnavailable, type Database } from '../../kit/db.ts';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../kit/app.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { OrganizationTokens } from '../organizations/token-scope.ts';
import type { BuiltInClient } from '../apps/built-in-clients.ts';
import type { ClientStore } from './clients.ts';
import type { AccessTokenCommit } from './token-writer.ts';
import { mapClaimsIntoIdTokens } from './mapped-claims.ts';
import { reuseClientsPerAppVersion } from './client-reuse.ts';
import { acceptKeysBesideSecrets, type KeyLookup } from './client-assertions.ts';
import { narrowToCurrentScopes, type TokenOwners } from './entitlement.ts';
import { providerConfiguration } from './configuration.ts';
import { registerGrants, type GrantPlugin } from './grants.ts';
import { shapeResponses } from './responses.ts';
import { enforcePollPace, type PollPace } from './device-polling.ts';
import { limitCodeGuesses } from './device-guesses.ts';
import type { Throttle } from '../../kit/throttle.ts';

export interface ProviderDeps {
  issuer: string;
  db: Database;
  secretKey: Buffer;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  scopes: readonly string[];
  loginSessionTtl: number;
  /** IDENTITY_ACCESS_TOKEN_COMMIT (token-writer.ts). */
  accessTokenCommit: AccessTokenCommit;
  signingKeys: JWK[];
  log: FastifyBaseLogger;
  /**
   * The app's outage log (kit/app.ts databaseOutage): the provider answers on the raw response, past the app's error
   * handler, so it tells the log itself. The app's onResponse hook and front door tell it of answers under 400.
   */
  outage: OutageLog;
  /** Static clients besides the account pages' one: set by `platform start` for services it runs beside identity. */
  builtInClients?: BuiltInClient[];
  /**
   * The grants the features add to the token endpoint (token exchange, jwt-bearer), registered in this order; made for
   * each provider, with its organization checks (what a request decided is remembered there for the token's save).
   */
  grants(orgs: OrganizationTokens): readonly GrantPlugin[];
  /** Claims a feature saves with a token (a delegated token's act and chain), or undefined. */
  tokenClaims(token: object): Record<string, unknown> | undefined;
  /** Whether a token's delegation chain still counts (delegation/entitlement.ts); an ordinary token passes. */
  chainLive(token: TokenOwners): Promise<boolean>;
  /** The live key pairs by key id (credentials), which a client assertion must be signed with. */
  keys: KeyLookup;
  /** How fast a device may poll for its tokens (RFC 8628): one for the service, so a key rotation keeps the counts. */
  devicePolling: PollPace;
  /** Unknown user codes typed per client address (RFC 8628 section 5.1): one for the service. */
  deviceGuesses: Throttle;
  /** Which addresses the provider may send to (logout tokens): IDENTITY_WEBHOOK_ALLOW_HOSTS's policy. */
  outbound: AddressPolicy;
}

/** The provider as the service holds it (swapped on key rotation, see mount.ts). */
export type OidcProvider = Provider;

/** What each step is given: the service's dependencies, this provider's organization checks and its grants. */
interface Built {
  deps: ProviderDeps;
  orgs: OrganizationTokens;
  grants: readonly GrantPlugin[];
}
type InstallStep = (provider: OidcProvider, built: Built) => void;

/**
 * oidc-provider configured to the contract (configuration.ts), then adjusted by the named steps below, in order, as
 * oidc-provider composes its own actions from small steps.
 */
export function buildProvider(deps: ProviderDeps): OidcProvider {
  const orgs = new OrganizationTokens(deps.db);
  const built: Built = { deps, orgs, grants: deps.grants(orgs) };
  const provider = new Provider(deps.issuer, providerConfiguration(deps, orgs));
  for (const step of INSTALL_STEPS) step(provider, built);
  return provider;
}

const INSTALL_STEPS: InstallStep[] = [
  (provider, { orgs }) => orgs.install(provider),
  (provider, { deps }) => reuseClientsPerAppVersion(provider, deps.clients),
  (provider) => acceptKeysBesideSecrets(provider),
  compareSecretsByHash,
  narrowGrantsWhenRead,
  trustForwardedHeaders,
  (provider, { grants }) => registerGrants(provider, grants),
  (provider, { deps, orgs, grants }) =>
    provider.use(shapeResponses({ ...deps, grantTypes: grants.map((g) => g.type) }, orgs)),
  databaseOutageIsTemporary,
  (provider, { deps }) => enforcePollPace(provider, deps.devicePolling),
  (provider, { deps }) => limitCodeGuesses(provider, deps.deviceGuesses),
  (provider, { deps }) => mapClaimsIntoIdTokens(provider, deps),
];

/**
 * Secrets are kept as SHA-256 only, several per app: the provider's own comparison against one clear client_secret is
 * replaced by a lookup among the app's live secret hashes.
 */
function compareSecretsByHash(provider: OidcProvider, { deps }: Built): void {
  provider.Client.prototype.compareClientSecret = function compareClientSecret(
    this: { clientId: string },
    actual: string,
  ) {
    return deps.clients.verifySecret(this.clientId, actual, Provider.ctx?.ip);
  };
}

/**
 * A grant holds what was allowed when it was made; every use (a reused grant at authorization, a code exchange, a
 * refresh, userinfo) reads it through Grant.find, so it is narrowed there to what the app and the principal are allowed now.
 */
function narrowGrantsWhenRead(provider: OidcProvider, { deps }: Built): void {
  const findGrant = provider.Grant.find.bind(provider.Grant);
  // The casts restate the provider's generic static `find` (typed for any token class) for the one class it is installed on.
  provider.Grant.find = (async (id: string, options?: { ignoreExpiration?: boolean }) => {
    const grant = (await findGrant(id, options)) as Grant | undefined;
    if (grant) await narrowToCurrentScopes(deps, grant);
    return grant;
  }) as typeof provider.Grant.find;
}

/** Trust the forwarded headers: mountProvider sets them itself from the issuer and Fastify's view of the client. */
function trustForwardedHeaders(provider: OidcProvider): void {
  provider.proxy = true;
}

/**
 * A dropped or unreachable database is temporary: RFC 6749's temporarily_unavailable with Retry-After, not a 500; and
 * the outage log hears of it, which logs the outage once however many requests meet it (before, nothing was logged).
 */
function databaseOutageIsTemporary(provider: OidcProvider, { deps }: Built): void {
  provider.on('server_error', (ctx: any, err: Error) => {
    if (isDatabaseUnavailable(err)) {
      deps.outage.failed(err);
      ctx.status = 503;
      ctx.set('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
      if (typeof ctx.body === 'object')
        ctx.body = { error: 'temporarily_unavailable', error_description: 'the database is unavailable; retry later' };
      return;
    }
    deps.log.error({ err }, 'oidc provider error');
  });
}
