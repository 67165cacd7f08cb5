import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** A destination the service will not reach: named so the caller (and the audit result) can say why. */
export class RefusedDestinationError extends Error {
  readonly host: string;
  /** The host has no address now (DNS failed or answered nothing), rather than one the policy refuses. */
  readonly unresolved: boolean;
  constructor(host: string, reason: string, unresolved = false) {
    super(reason);
    this.name = 'RefusedDestinationError';
    this.host = host;
    this.unresolved = unresolved;
  }
}

export interface AddressPolicy {
  /** Resolves a host (name or literal) and answers an address the service may connect to, or throws RefusedDestinationError. */
  resolve(host: string): Promise<LookupAddress>;
  /** Whether a URL may be asked for at all: http or https, with a host. Throws RefusedDestinationError otherwise. */
  checkUrl(url: URL): void;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Every address of a host name, as node:dns's `lookup` with `all` answers them. */
export type HostLookup = (host: string) => Promise<LookupAddress[]>;

export interface AddressPolicyOptions {
  /** How long a host name may take to resolve before `resolve` gives up on it; LOOKUP_TIMEOUT_MS by default. */
  lookupTimeoutMs?: number;
  /** Asks for a name's addresses: node:dns's `lookup` (the system resolver) unless a test puts another in its place. */
  lookup?: HostLookup;
}

/**
 * A working resolver answers in milliseconds, a cold recursive lookup in a second or two. glibc sends an unanswered
 * query again after 5 s (resolv.conf `timeout:5`), and some networks lose a first query now and then (the known case:
 * Kubernetes' conntrack race between the parallel A and AAAA queries), so a limit under 5 s would fail names that
 * the resend resolves. 8 s lets that answer arrive and still ends well before the resolver gives up by itself (10 s
 * a name with one nameserver and the default 2 attempts, several times that with more nameservers or search domains),
 * all the while holding a request, a webhook delivery or a scheduled audit's claim.
 */
export const LOOKUP_TIMEOUT_MS = 8_000;

const systemLookup: HostLookup = (host) => lookup(host, { all: true, verbatim: true });

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** Whether an AUDIT_ALLOW_HOSTS entry is a host name, an address or a CIDR range. */
export function isAllowEntry(entry: string): boolean {
  const value = entry.trim();
  if (value.includes('/')) {
    try {
      ipaddr.parseCIDR(value);
      return true;
    } catch {
      return false;
    }
  }
  return ipaddr.isValid(value) || HOST_NAME.test(value);
}

/**
 * Only globally routable unicast addresses are reachable by default: loopback, private, carrier-grade NAT,
 * link-local (cloud metadata at 169.254.169.254, and at fd00:ec2::254, a unique-local address), unique-local, multicast, reserved, and the IPv6 forms
 * that embed an IPv4 address (mapped, 6to4, Teredo, NAT64) are refused. `allow` names hosts (exact,
 * case-insensitive) or ranges (CIDR or single addresses) an operator lets through anyway.
 */
export function createAddressPolicy(allow: readonly string[], options: AddressPolicyOptions = {}): AddressPolicy {
  const lookupHost = options.lookup ?? systemLookup;
  const lookupTimeoutMs = options.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS;
  const hosts = new Set<string>();
  const ranges: Range[] = [];
  for (const entry of allow) {
    const value = entry.trim();
    if (!value) continue;
    if (value.includes('/')) ranges.push(ipaddr.parseCIDR(value));
    else if (ipaddr.isValid(value)) {
      const addr = ipaddr.parse(value);
      ranges.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    } else hosts.add(value.toLowerCase().replace(/\.$/, ''));
  }

  const addressAllowed = (address: string): string | null => {
    let addr = ipaddr.parse(address);
    // URLs compress a mapped address (`[::ffff:10.0.0.1]` becomes `::ffff:a00:1`): the message names the IPv4 form too.
    let shown = address;
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
      addr = (addr as ipaddr.IPv6).toIPv4Address();
      shown = `${address} (IPv4 ${addr.toString()})`;
    }
    for (const [net, bits] of ranges) if (net.kind() === addr.kind() && addr.match(net, bits)) return null;
    const range = addr.range();
    if (range === 'unicast') return null;
    const metadata = METADATA_ADDRESSES.has(addr.toNormalizedString())
      ? ', where a cloud metadata service answers'
      : '';
    return `${shown} is ${describe(range)}${metadata}`;
  };

  return {
    checkUrl(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new RefusedDestinationError(
          url.hostname,
          `only http and https URLs can be reached (got ${url.protocol.replace(':', '')})`,
        );
      if (!url.hostname) throw new RefusedDestinationError('', 'the URL has no host');
    },
    async resolve(rawHost) {
      const host = rawHost
        .replace(/^\[|\]$/g, '')
        .toLowerCase()
        .replace(/\.$/, '');
      if (ipaddr.isValid(host)) {
        const reason = hosts.has(host) ? null : addressAllowed(host);
        if (reason) throw new RefusedDestinationError(host, `refused: ${reason}`);
        return { address: ipaddr.parse(host).toString(), family: host.includes(':') ? 6 : 4 };
      }
      const found = await lookupWithin(lookupHost, host, lookupTimeoutMs);
      if (found.length === 0) throw new RefusedDestinationError(host, `the host ${host} has no address`, true);
      if (hosts.has(host)) return found[0]!;
      // Every address must pass: a name that resolves to one public and one private address could be answered either way.
      for (const a of found) {
        const reason = addressAllowed(a.address);
        if (reason) throw new RefusedDestinationError(host, `refused: ${host} resolves to ${reason}`);
      }
      return found[0]!;
    },
  };
}

/**
 * The host's addresses, or RefusedDestinationError (unresolved) when the lookup fails or outlasts the limit. The
 * limit frees the caller only: getaddrinfo cannot be cancelled, so its libuv thread stays busy until the system
 * resolver gives up (a late answer or failure is then ignored).
 */
async function lookupWithin(lookupHost: HostLookup, host: string, ms: number): Promise<LookupAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RefusedDestinationError(host, `the host ${host} did not resolve within ${ms / 1000} s`, true)),
      ms,
    );
  });
  try {
    const answer = (async () => {
      try {
        return await lookupHost(host);
      } catch {
        throw new RefusedDestinationError(host, `the host ${host} could not be resolved`, true);
      }
    })();
    return await Promise.race([answer, late]);
  } finally {
    // Cleared as soon as either settles, so the timer never outlives the lookup. Not unref'd: while the lookup is
    // pending the caller waits for this timer's answer (and a real getaddrinfo holds the event loop open anyway).
    clearTimeout(timer);
  }
}

/**
 * Cloud instance metadata endpoints (AWS, Google Cloud, Azure, OpenStack, DigitalOcean at 169.254.169.254; AWS
 * over IPv6 at fd00:ec2::254; AWS ECS task metadata at 169.254.170.2): the address that makes a refusal matter
 * most, so the message says so. Other link-local or private addresses get no such remark.
 */
const METADATA_ADDRESSES = new Set(
  ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toNormalizedString()),
);

function describe(range: string): string {
  switch (range) {
    case 'loopback':
      return 'a loopback address';
    case 'private':
    case 'uniqueLocal':
      return 'a private address';
    case 'linkLocal':
      return 'a link-local address';
    case 'carrierGradeNat':
      return 'a carrier-grade NAT address';
    case 'unspecified':
      return 'an unspecified address';
    case 'multicast':
      return 'a multicast address';
    case 'broadcast':
      return 'a broadcast address';
    case 'rfc6052':
      return 'a NAT64 address (64:ff9b::/96, an IPv4 address in IPv6 form)';
    case '6to4':
      return 'a 6to4 address (2002::/16, an IPv4 address in IPv6 form)';
    case 'teredo':
      return 'a Teredo address (2001::/32, an IPv4 address in IPv6 form)';
    default:
      return `not a public address (${range})`;
  }
}

/** A `lookup` for node:net and node:http that answers one address already checked, so nothing resolves the name again. */
export function pinnedLookup(address: LookupAddress) {
  return (
    _hostname: string,
    options: { all?: boolean },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    if (options.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
}
