import type { Queryable } from '../../kit/db.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { guardedFetch } from '../../kit/outbound/guarded-fetch.ts';
import { oidcProvider } from '../../kit/upstream-login/oidc.ts';
import { PROVIDER_TIMEOUT_MS } from '../../kit/upstream-login/provider.ts';
import type { SocialProvider } from '../social/registry.ts';
import { connectorSecrets, type ConnectorSecrets } from './store.ts';
import { resolveEnterprise } from './resolve.ts';

/** An organization's connector is the upstream provider `sso-<organization id>` (36 + 4 characters: the route's limit). */
const PREFIX = 'sso-';
const ID = /^sso-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const enterpriseProviderId = (organizationId: string) => `${PREFIX}${organizationId}`;

export interface EnterpriseDeps {
  db: Queryable;
  secretKey: Buffer;
  /** The outbound guard: the issuer is a URL an admin named, so discovery, token and key requests go through it. */
  policy: AddressPolicy;
}

/**
 * The upstream provider of an organization's connector, read at each use (a changed connector applies at the next
 * sign-in): the toolkit's OpenID client, its requests through the outbound guard, and the just-in-time rules of
 * enterprise SSO in place of social login's.
 */
export function enterpriseProvider(deps: EnterpriseDeps, c: ConnectorSecrets): SocialProvider {
  return {
    name: c.organizationName,
    provider: oidcProvider({
      id: enterpriseProviderId(c.organizationId),
      issuer: c.issuer,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      fetch: guardedFetch(deps.policy, { timeoutMs: PROVIDER_TIMEOUT_MS, maxAnswerBytes: 1024 * 1024 }),
    }),
    resolve: (db, who) => resolveEnterprise(db, c, who),
  };
}

/** The provider an id names when it is an organization's connector; undefined otherwise. */
export async function findEnterpriseProvider(deps: EnterpriseDeps, id: string): Promise<SocialProvider | undefined> {
  if (!ID.test(id)) return undefined;
  const c = await connectorSecrets(deps.db, deps.secretKey, id.slice(PREFIX.length));
  return c ? enterpriseProvider(deps, c) : undefined;
}
