import { databaseOutage } from '../../kit/app.ts';
import { buildProvider, type OidcProvider } from '../oidc/provider.ts';
import { memoryPollPace, redisPollPace } from '../oidc/device-polling.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import { ROUTES } from '../oidc/protocol.ts';
import { loadSigningKeys } from '../oidc/signing-keys.ts';
import type { TokenOwners } from '../oidc/entitlement.ts';
import { purgeExpired } from '../oidc/store.ts';
import { purgeExpiredSessions } from '../sessions/store.ts';
import { CredentialLookup, purgeSpentJtis } from '../credentials/lookup.ts';
import { delegationClaims } from '../delegation/exchange.ts';
import { delegationLive } from '../delegation/entitlement.ts';
import { ExchangeWrites } from '../delegation/exchange-writes.ts';
import { tokenEndpointGrants, type GrantDeps } from './grants.ts';
import { sharedThrottle, type Assembly } from './services.ts';

/** The provider as the routes use it, and what its fast routes share with it. */
export interface ProviderParts {
  holder: ProviderHolder;
  /** Looks for rotated signing keys now (a timer also does it every IDENTITY_KEY_REFRESH_SECONDS). */
  reloadKeys(): Promise<boolean>;
  grants: GrantDeps;
  chainLive(token: TokenOwners): Promise<boolean>;
}

/**
 * The provider with the features' grants and checks plugged in (grants.ts), rebuilt when the signing keys rotate; and the
 * timers that look for rotated keys and purge what expired.
 */
export async function startProvider(a: Assembly): Promise<ProviderParts> {
  const { config, db, accounts, log } = a;
  const credentials = new CredentialLookup(db);
  const chainLive = (token: TokenOwners) => delegationLive(db, accounts, token);
  const grants: GrantDeps = {
    db,
    accounts,
    clients: a.clients,
    scopes: new Set(a.scopes),
    issuer: config.issuer,
    tokenEndpoint: new URL(ROUTES.token, config.issuer).href,
    credentials,
    delegationMaxDepth: config.delegationMaxDepth,
    exchangeWrites: new ExchangeWrites(db),
  };
  const devicePolling = a.redis
    ? redisPollPace(a.redis, config.devicePollInterval)
    : memoryPollPace(config.devicePollInterval);
  const deviceGuesses = sharedThrottle(a.redis, log, { freeFailures: 10, prefix: 'identity:device-code:' });
  const make = (signingKeys: Parameters<typeof buildProvider>[0]['signingKeys']): OidcProvider => {
    const provider = buildProvider({
      issuer: config.issuer,
      db,
      secretKey: a.secretKey,
      clients: a.clients,
      accounts,
      scopes: a.scopes,
      loginSessionTtl: config.loginSessionTtl,
      accessTokenCommit: config.accessTokenCommit,
      signingKeys,
      log,
      outage: databaseOutage(a.app),
      builtInClients: config.links?.builtInClients ?? [],
      grants: (orgs) => tokenEndpointGrants(grants, orgs),
      tokenClaims: delegationClaims,
      chainLive,
      keys: credentials,
      devicePolling,
      deviceGuesses,
      outbound: a.webhooks.policy,
    });
    a.metrics.observe(provider);
    return provider;
  };
  const keys = await loadSigningKeys(db, a.secretKey);
  const holder: ProviderHolder = { current: make(keys.privateKeys) };
  let keysVersion = keys.version;
  const reloadKeys = async () => {
    const next = await loadSigningKeys(db, a.secretKey);
    if (next.version === keysVersion) return false;
    holder.current = make(next.privateKeys);
    keysVersion = next.version;
    log.info({ keys: next.privateKeys.map((k) => k.kid) }, 'signing keys reloaded');
    return true;
  };
  startTimers(a, reloadKeys);
  return { holder, reloadKeys, grants, chainLive };
}

function startTimers(a: Assembly, reloadKeys: () => Promise<boolean>): void {
  const { db, log } = a;
  a.timers.push(
    setInterval(
      () => void reloadKeys().catch((err) => log.error({ err }, 'signing key reload failed')),
      a.config.keyRefreshSeconds * 1000,
    ),
    setInterval(
      () =>
        void (async () => {
          await purgeExpired(db);
          await purgeExpiredSessions(db);
          await purgeSpentJtis(db);
        })().catch((err) => log.error({ err }, 'purge of expired artifacts failed')),
      10 * 60_000,
    ),
  );
  for (const t of a.timers) t.unref();
}
