import { normalizeUrl } from '../crawl/normalize.ts';
import { RefusedDestinationError, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { AuditFailedError } from './audit-errors.ts';

/**
 * The audit's start URL, normalised, once the address policy lets it be fetched. A refusal cannot be retried; a host
 * that did not resolve now (DNS failed or did not answer in time) can, as a page the site did not answer.
 */
export async function auditableStart(url: string, policy: AddressPolicy): Promise<string> {
  const start = normalizeUrl(url);
  if (!start) throw new AuditFailedError('the URL must be an absolute http or https URL', false);
  try {
    policy.checkUrl(new URL(start));
    await policy.resolve(new URL(start).hostname);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw new AuditFailedError(err.message, err.unresolved);
    throw err;
  }
  return start;
}
