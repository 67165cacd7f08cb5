import type { AuditConfig } from '../result/types.ts';
import { RefusedDestinationError, type AddressPolicy } from '../safety/address-policy.ts';
import { badRequest, parseAuditUrl, resolveConfig, type ConfigLimits } from './resolve.ts';
import type { RequestedConfig } from './schema.ts';

/**
 * A request's URL and options as an audit takes them — the URL parsed, the options resolved against the
 * operator's ceilings, the URL's host allowed by the address policy — or a 400 naming what is wrong.
 * `onRefused` is told of a refused host before the 400 is thrown.
 */
export async function auditRequest(
  rawUrl: string,
  requested: RequestedConfig,
  limits: ConfigLimits,
  policy: AddressPolicy,
  onRefused?: () => void,
): Promise<{ url: URL; config: AuditConfig }> {
  const url = parseAuditUrl(rawUrl);
  const config = resolveConfig(requested, limits);
  try {
    await policy.resolve(url.hostname);
  } catch (err) {
    if (!(err instanceof RefusedDestinationError)) throw err;
    onRefused?.();
    throw badRequest(`url cannot be audited: ${err.message}`);
  }
  return { url, config };
}
