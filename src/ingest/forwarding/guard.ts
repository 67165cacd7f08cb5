import { createAddressPolicy, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import type { ForwardingConfig } from './config.ts';

/**
 * What every request of forwarding goes through, and what checks a destination's URL when it is given: the
 * address policy (internal addresses refused unless INGEST_DESTINATION_ALLOW_HOSTS names them) and the one
 * time limit of a request, which also bounds the lookup of a URL's host at creation.
 */
export interface ForwardingGuard {
  policy: AddressPolicy;
  timeoutMs: number;
}

export function forwardingGuard(
  config: Pick<ForwardingConfig, 'destinationAllowHosts' | 'forwardingTimeoutMs'>,
): ForwardingGuard {
  return { policy: createAddressPolicy(config.destinationAllowHosts), timeoutMs: config.forwardingTimeoutMs };
}

/** The variable named in every refusal, so whoever reads it knows how an operator allows an internal host. */
export const ALLOW_HOSTS_HINT =
  'destinations on the internal network are refused unless INGEST_DESTINATION_ALLOW_HOSTS names them';
