import { RefusedDestinationError } from '../../../kit/outbound/address-policy.ts';
import { ALLOW_HOSTS_HINT, type ForwardingGuard } from '../guard.ts';
import { DestinationInputError } from './errors.ts';

/**
 * Refuses a destination URL given at creation or in a change when its host is, or resolves to, an internal address
 * (loopback, private, link-local such as a cloud metadata service...). A name that does not resolve now, or not within
 * the time limit, is taken: its DNS may come later, and every delivery checks the address again before connecting.
 */
export async function refuseInternalUrl(url: string, guard: ForwardingGuard): Promise<void> {
  const u = new URL(url);
  let timer: NodeJS.Timeout | undefined;
  try {
    guard.policy.checkUrl(u);
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), guard.timeoutMs);
    });
    await Promise.race([guard.policy.resolve(u.hostname), late]);
  } catch (err) {
    if (!(err instanceof RefusedDestinationError)) throw err;
    if (err.unresolved) return;
    throw new DestinationInputError(`base_url: ${err.message}; ${ALLOW_HOSTS_HINT}`);
  } finally {
    clearTimeout(timer);
  }
}
