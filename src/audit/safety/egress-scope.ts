import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';

/** Header on the proxy's own refusal answers, so the page auditor can tell a refused document from a site's 403. */
export const REFUSED_HEADER = 'x-audit-refused';
/** Header on the proxy's answer when the site could not be reached (connection refused, reset, …), so the page
 * auditor records a network failure (retried for a job) instead of the proxy's own 502 as the site's answer. */
export const UNREACHABLE_HEADER = 'x-audit-unreachable';

/**
 * A request the proxy refused. `target` is what the request named: the URL of a plain-http request it forwards, but
 * `host:port` for a CONNECT tunnel, which names nothing more. A browser tunnels https and WebSockets; Playwright's own
 * fetch (`route.fetch`) tunnels plain http too, and a tunnel is refused before any byte that would tell which.
 */
export interface Refusal {
  target: string;
  reason: string;
}

/** Whether `refusal` is of the host and port `url` is at (all that a tunnel's refusal knows of it). */
export function refusedAt(refusal: Refusal, url: string): boolean {
  const at = authorityOf(url);
  return at !== undefined && at === authorityOf(refusal.target);
}

/** `host:port` of a URL (its scheme's port when it names none), or a tunnel's target as it is. */
function authorityOf(target: string): string | undefined {
  // A bare `host:port` would parse as a URL whose scheme is the host.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return target.toLowerCase();
  try {
    const url = new URL(target);
    return `${url.hostname}:${url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}

/** What the proxy's HTTP forwarding and CONNECT tunnels share: the audit's policy, its refusals, its open connections. */
export interface EgressScope {
  policy: AddressPolicy;
  /** Records a refusal by the address policy (the first 1000) and answers the reason to tell the browser. */
  refuse(target: string, err: unknown): string;
  /** Connections to the browser and tunnels to sites: destroyed when the proxy closes. */
  sockets: Set<Socket>;
  /** Forwarded requests to sites: destroyed when the proxy closes. */
  upstreams: Set<ClientRequest>;
}
