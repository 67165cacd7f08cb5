/** A token pair shared by the tabs of the app: its access token names it. */
export interface SharedPair {
  accessToken: string;
}

export interface SharedRefresh<P extends SharedPair> {
  /** The Web Lock tabs take turns under, and the BroadcastChannel a refreshing tab announces its new pair on. */
  lock: string;
  channel: string;
  read(): P | undefined;
  write(pair: P | undefined): void;
  /** Trades the pair's refresh token for a new pair at its service; undefined when the service refuses. */
  exchange(current: P): Promise<P | undefined>;
}

/** How long a tab that waited for another tab's refresh gives that tab's new pair to reach it. */
const HANDOVER_MS = 3_000;

/**
 * Watches for a pair another tab has just made (its message on the channel, or the shared store changing). Started
 * before waiting for the lock, so a pair announced meanwhile is not missed.
 */
function watchForNewPair<P extends SharedPair>(shared: SharedRefresh<P>, rejected: string | undefined) {
  const channel = new BroadcastChannel(shared.channel);
  let arrived: () => void = () => {};
  const seen = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  channel.onmessage = (e: MessageEvent<P>) => {
    if (e.data?.accessToken && e.data.accessToken !== rejected) {
      shared.write(e.data);
      arrived();
    }
  };
  const onStorage = () => {
    if (shared.read()?.accessToken !== rejected) arrived();
  };
  addEventListener('storage', onStorage);
  return {
    wait: (ms: number) => Promise.race([seen, new Promise<void>((resolve) => setTimeout(resolve, ms))]),
    close: () => {
      channel.close();
      removeEventListener('storage', onStorage);
    },
  };
}

/**
 * A refresh that tabs sharing one pair (in localStorage) take in turns. A service takes a refresh token presented twice
 * as stolen (the whole session ends), so tabs refresh one at a time under a Web Lock. A tab that had to wait for the
 * lock waits too for the other tab's new pair: another tab's write to localStorage reaches this one asynchronously
 * (CI saw a tab read the old pair after taking the lock and present the used refresh token), so the refreshing tab
 * also hands the pair over on a BroadcastChannel. The function answers whether a pair other than `rejected` (the access
 * token a service just refused) is there now; calls while one runs share it.
 */
export function sharedRefresh<P extends SharedPair>(
  shared: SharedRefresh<P>,
): (rejected: string | undefined) => Promise<boolean> {
  let refreshing: Promise<boolean> | undefined;
  const exchange = async (rejected: string | undefined) => {
    const current = shared.read();
    if (!current) return false;
    if (current.accessToken !== rejected) return true;
    try {
      const pair = await shared.exchange(current);
      if (!pair) return false;
      shared.write(pair);
      const channel = new BroadcastChannel(shared.channel);
      channel.postMessage(pair);
      channel.close();
      return true;
    } catch {
      return false;
    }
  };
  return (rejected) => {
    refreshing ??= (async () => {
      if (!navigator.locks) return exchange(rejected);
      const watch = watchForNewPair(shared, rejected);
      try {
        const alone = await navigator.locks.request(shared.lock, { ifAvailable: true }, async (lock) =>
          lock ? { ok: await exchange(rejected) } : undefined,
        );
        if (alone) return alone.ok;
        return await navigator.locks.request(shared.lock, async () => {
          if (shared.read()?.accessToken === rejected) await watch.wait(HANDOVER_MS);
          return exchange(rejected);
        });
      } finally {
        watch.close();
      }
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };
}
