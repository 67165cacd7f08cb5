import { variable, type Variable } from '../config.ts';
import { isAllowEntry } from './address-policy.ts';

/**
 * `<SERVICE>_<WHAT>_ALLOW_HOSTS`: hosts and ranges a service may reach at URLs people typed (webhooks, notification
 * channels) although they are internal. Empty by default: only public addresses. A malformed entry stops the start.
 */
export function allowHostsVariable(name: string, what: string): Variable<string[]> {
  return variable(
    name,
    'a comma-separated list of host names, addresses or CIDR ranges such as 10.1.0.0/16',
    (raw) => {
      const entries = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return entries.every(isAllowEntry) ? entries : undefined;
    },
    {
      default: [],
      doc: `Host names and address ranges (CIDR such as \`10.1.0.0/16\`, or single addresses) ${what} may reach although they are loopback, private, link-local or otherwise internal. Empty: only public addresses.`,
    },
  );
}
