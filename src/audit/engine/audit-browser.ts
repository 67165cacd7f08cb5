import type { BrowserContext } from 'playwright-core';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { openEgressProxy } from '../safety/egress-proxy.ts';
import type { Refusal } from '../safety/egress-scope.ts';
import { AuditCancelledError } from './audit-errors.ts';
import type { BrowserHost } from './browser-host.ts';
import { PageCancelled } from './page-audit.ts';

/**
 * Runs `work` in a fresh browser context of its own whose traffic all goes through an egress proxy of its own
 * (whose refusals it is given), and closes both when it ends, however it ends. A cancelled audit throws
 * AuditCancelledError, whatever the browser threw when its context went away.
 */
export async function withAuditBrowser<T>(
  host: BrowserHost,
  policy: AddressPolicy,
  signal: AbortSignal | undefined,
  work: (context: BrowserContext, refusals: readonly Refusal[]) => Promise<T>,
): Promise<T> {
  const proxy = await openEgressProxy(policy);
  let context: BrowserContext | null = null;
  // An aborted audit lets go of its browser context and its proxy at once, even if a browser call it awaits never returns.
  const onAbort = () => {
    void context?.close().catch(() => {});
    void proxy.close();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    context = await host.newContext(proxy.server);
    if (signal?.aborted) throw new AuditCancelledError();
    return await work(context, proxy.refusals);
  } catch (err) {
    if (err instanceof PageCancelled || signal?.aborted) throw new AuditCancelledError();
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await context?.close().catch(() => {});
    await proxy.close();
  }
}
