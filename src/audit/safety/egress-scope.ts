import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';

/** Header on the proxy's own refusal answers, so the page auditor can tell a refused document from a site's 403. */
export const REFUSED_HEADER = 'x-audit-refused';
/** Header on the proxy's answer when the site could not be reached (connection refused, reset, …), so the page
 * auditor records a network failure (retried for a job) instead of the proxy's own 502 as the site's answer. */
export const UNREACHABLE_HEADER = 'x-audit-unreachable';

export interface Refusal {
  url: string;
  reason: string;
}

/** What the proxy's HTTP forwarding and CONNECT tunnels share: the audit's policy, its refusals, its open connections. */
export interface EgressScope {
  policy: AddressPolicy;
  /** Records a refusal by the address policy (the first 1000) and answers the reason to tell the browser. */
  refuse(url: string, err: unknown): string;
  /** Connections to the browser and tunnels to sites: destroyed when the proxy closes. */
  sockets: Set<Socket>;
  /** Forwarded requests to sites: destroyed when the proxy closes. */
  upstreams: Set<ClientRequest>;
}
