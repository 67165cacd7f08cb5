import type { Database } from '../../kit/db.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { auditRequest } from '../request/audit-request.ts';
import type { ConfigLimits } from '../request/resolve.ts';
import type { SiteConfig } from './schemas.ts';
import { missingSecrets } from '../secrets/store.ts';

export interface SiteCheckDeps {
  db: Database;
  policy: AddressPolicy;
  limits: ConfigLimits;
}

/**
 * A site's URL and settings as a run would take them, checked as an audit request is (the URL's scheme and address,
 * the options within the operator's ceilings, the secrets its session names stored), or a 400 naming what is wrong.
 * The settings are kept as asked (defaults are applied at each run, so a changed default reaches the site), with the
 * level and version in their one spelling.
 */
export async function checkedSite(
  deps: SiteCheckDeps,
  owner: string,
  input: { name: string; url: string; config?: SiteConfig | undefined },
): Promise<{ name: string; url: string; config: SiteConfig }> {
  const requested = input.config ?? {};
  const { url } = await auditRequest(input.url, requested, {
    limits: deps.limits,
    policy: deps.policy,
    missingSecrets: (names) => missingSecrets(deps.db, owner, names),
  });
  const config: SiteConfig = { ...requested };
  if (config.level) config.level = config.level.toUpperCase() as 'A' | 'AA' | 'AAA';
  if (typeof config.version === 'number') config.version = config.version.toFixed(1) as '2.0' | '2.1' | '2.2';
  return { name: input.name.trim(), url: url.href, config };
}
