import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DataSourceError } from './driver.ts';

/**
 * Which addresses a data source may connect to. Databases normally live on internal hosts, so private ranges and
 * loopback are allowed by default; what is always refused are addresses no database should be on and that serve
 * something else worth stealing: link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254), "this network",
 * multicast and reserved ranges. An operator can narrow further with an allow-list (only these networks) and widen
 * the deny-list.
 */
export interface NetworkPolicy {
  deny: BlockList;
  /** When set, an address must also be in it. */
  allow: BlockList | undefined;
}

export const DEFAULT_DENIED_NETWORKS = [
  '0.0.0.0/8',
  '169.254.0.0/16',
  '100.100.100.200/32',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  'fe80::/10',
  'fd00:ec2::254/128',
  'ff00::/8',
];

function addCidr(list: BlockList, cidr: string): void {
  const [address, bits] = cidr.split('/');
  const family = isIP(address ?? '');
  const prefix = Number(bits);
  if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128))
    throw new Error(`"${cidr}" is not a network in CIDR notation (10.0.0.0/8, fd00::/8)`);
  list.addSubnet(address!, prefix, family === 4 ? 'ipv4' : 'ipv6');
}

export function networkPolicy(deny: readonly string[], allow: readonly string[] | undefined): NetworkPolicy {
  const d = new BlockList();
  for (const c of deny) addCidr(d, c);
  let a: BlockList | undefined;
  if (allow && allow.length > 0) {
    a = new BlockList();
    for (const c of allow) addCidr(a, c);
  }
  return { deny: d, allow: a };
}

/** ::ffff:169.254.169.254 is 169.254.169.254: an IPv4-mapped address is checked as the IPv4 address it carries. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function addressAllowed(policy: NetworkPolicy, address: string): boolean {
  const a = normalise(address);
  if (policy.deny.check(a.address, a.family)) return false;
  return policy.allow ? policy.allow.check(a.address, a.family) : true;
}

/**
 * Resolves `host` and returns the address to connect to, checked against the policy. Connecting to the address that
 * was checked (not the name again) means a DNS answer that changes in between cannot slip past the check.
 */
export async function resolveAllowed(policy: NetworkPolicy, host: string): Promise<string> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: { address: string }[];
  if (isIP(bare)) addresses = [{ address: bare }];
  else {
    try {
      addresses = await lookup(bare, { all: true });
    } catch {
      throw new DataSourceError('connect', `could not resolve the data source's host "${bare}"`);
    }
  }
  const allowed = addresses.find((a) => addressAllowed(policy, a.address));
  if (!allowed)
    throw new DataSourceError('network', `the data source's host "${bare}" is on a network data sources may not reach`);
  return allowed.address;
}
