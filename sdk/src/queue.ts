import type { EventStore } from './store.ts';
import { send, type SendOutcome } from './transport.ts';
import type { IngestEvent, Rejection } from './types.ts';

export interface QueueOptions {
  url: string;
  apiKey: string;
  batchSize: number;
  flushIntervalMs: number;
  maxQueuedEvents: number;
  retryBaseMs: number;
  retryMaxMs: number;
  store: EventStore;
  /** True while the visitor has opted out: nothing is sent, and what is queued is thrown away. */
  blocked: () => boolean;
  onRejected?: (rejections: Rejection[]) => void;
}

/** Browsers allow 64 KB of keepalive request bodies in flight in all: a page-hide flush sends at most this much. */
const KEEPALIVE_BYTES = 60_000;
/** Far under the service's 10 MB per request, so one request never risks a 400 for its size. */
const MAX_REQUEST_BYTES = 1_000_000;

/** Bytes of a string in UTF-8, as it goes on the wire: `length` counts UTF-16 units, a third of a CJK text's bytes. */
export function utf8Bytes(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // 2 bytes to U+07FF, 3 above; a surrogate pair (two units) is 4.
    if (c > 0x7f) n += c > 0x7ff && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

/** setTimeout's largest delay: browsers run a longer one at once, which would turn a long wait into a retry loop. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The event as it will be sent, or why it cannot be. A copy through JSON: the queue no longer shares objects the
 * app may change after `track`, and a value JSON cannot hold (a BigInt, a cycle) is refused here, once, rather
 * than failing every later send of the queue it sits in (and, kept in IndexedDB, every page load after).
 */
function asSent(event: IngestEvent): IngestEvent | string {
  try {
    return JSON.parse(JSON.stringify(event)) as IngestEvent;
  } catch (err) {
    return `event: cannot be sent as JSON (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
  }
}

const retryable = (status: number) => status === 0 || status === 408 || status === 429 || status >= 500;

/**
 * The batching queue: sends when `batchSize` events wait or every `flushIntervalMs`, retries the network and
 * 408/429/5xx with exponential backoff and jitter (or the service's Retry-After), and drops what the
 * service refused (reported to `onRejected`) rather than retrying it forever.
 */
export function createQueue(o: QueueOptions) {
  let queue: IngestEvent[] = [];
  let inFlight: Promise<void> | undefined;
  let attempt = 0;
  let retryAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const schedule = (delay: number) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(
      () => {
        timer = undefined;
        // The timer is the moment to retry: browsers may fire it a millisecond before Date.now() reaches retryAt.
        retryAt = 0;
        void flush();
      },
      Math.min(delay, MAX_TIMER_MS),
    );
  };

  // The app's callback must not break the queue (or the `track` call) it is called from.
  const report = (rejections: Rejection[]) => {
    try {
      if (rejections.length) o.onRejected?.(rejections);
    } catch {
      // The rejections are dropped either way.
    }
  };

  const drop = (events: readonly IngestEvent[]) => {
    const ids = new Set(events.map((e) => e.event_id));
    queue = queue.filter((e) => !ids.has(e.event_id));
    o.store.remove([...ids]);
  };

  /** The first events of `from` that fit in one request of at most `budget` bytes; `bytes` is that request's size. */
  const take = (from: readonly IngestEvent[], budget: number): { batch: IngestEvent[]; bytes: number } => {
    const batch: IngestEvent[] = [];
    let bytes = 12;
    for (const e of from) {
      const size = utf8Bytes(JSON.stringify(e)) + 1;
      if (batch.length === o.batchSize || (batch.length > 0 && bytes + size > budget)) break;
      batch.push(e);
      bytes += size;
    }
    return { batch, bytes };
  };

  const settle = (batch: IngestEvent[], r: SendOutcome): boolean => {
    if (r.status === 202 || r.status === 200) {
      attempt = 0;
      const refused = (r.errors ?? [])
        .filter((x) => batch[x.index])
        .map((x) => ({ event: batch[x.index]!, error: x.error }));
      drop(batch);
      report(refused);
      return true;
    }
    if (retryable(r.status)) {
      attempt++;
      const backoff = Math.min(o.retryMaxMs, o.retryBaseMs * 2 ** (attempt - 1));
      const delay = Math.max(r.retryAfterMs ?? 0, backoff / 2 + Math.random() * (backoff / 2));
      retryAt = Date.now() + delay;
      schedule(delay);
      return false;
    }
    // Any other answer (400, 401, 413, ...) would be the same next time: the batch is refused as a whole.
    attempt = 0;
    drop(batch);
    report(batch.map((event) => ({ event, error: r.message ?? `request refused with status ${r.status}` })));
    return true;
  };

  async function drain(): Promise<void> {
    if (o.blocked()) return;
    while (queue.length > 0 && Date.now() >= retryAt && navigator.onLine !== false) {
      const { batch } = take(queue, MAX_REQUEST_BYTES);
      if (!settle(batch, await send(o.url, o.apiKey, batch))) return;
    }
  }

  function flush(): Promise<void> {
    inFlight ??= drain().finally(() => {
      inFlight = undefined;
      if (queue.length > 0 && timer === undefined) schedule(o.flushIntervalMs);
    });
    return inFlight;
  }

  function stop(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }

  return {
    size: () => queue.length,
    /** Adds restored or new events; past `maxQueuedEvents` the oldest go, so an offline page stays bounded. */
    add(events: IngestEvent[], persist = true) {
      if (o.blocked()) return;
      const known = new Set(queue.map((e) => e.event_id));
      const fresh: IngestEvent[] = [];
      const unsendable: Rejection[] = [];
      for (const event of events) {
        const sent = asSent(event);
        if (typeof sent === 'string') unsendable.push({ event, error: sent });
        else if (!known.has(sent.event_id)) fresh.push(sent);
      }
      if (unsendable.length) {
        // Restored from IndexedDB by an SDK that did not check: it goes from there too.
        o.store.remove(unsendable.map((r) => r.event.event_id));
        report(unsendable);
      }
      queue.push(...fresh);
      if (persist) o.store.put(fresh);
      if (queue.length > o.maxQueuedEvents) drop(queue.slice(0, queue.length - o.maxQueuedEvents));
      if (queue.length >= o.batchSize && Date.now() >= retryAt) void flush();
      else if (timer === undefined) schedule(o.flushIntervalMs);
    },
    flush,
    /**
     * Sends with keepalive as the page goes away, unless the service asked to wait: as many of the newest events as
     * 60 KB holds (more would be refused by the browser), since the newest (the last click, the page.leave) may not be
     * in IndexedDB yet while older ones are and go with the next page load. Events stay queued (and stored) until answered.
     */
    flushOnHide() {
      if (Date.now() < retryAt || navigator.onLine === false || o.blocked()) return;
      let rest = queue.slice().reverse();
      let budget = KEEPALIVE_BYTES;
      while (rest.length > 0) {
        const { batch, bytes } = take(rest, budget);
        if (bytes > budget) break;
        rest = rest.slice(batch.length);
        budget -= bytes;
        batch.reverse();
        void send(o.url, o.apiKey, batch, true).then((r) => settle(batch, r));
      }
    },
    online() {
      retryAt = 0;
      void flush();
    },
    /** Forgets every queued event, in memory and in the store; a request already on the wire still settles. */
    clear() {
      queue = [];
      o.store.clear();
      attempt = 0;
      retryAt = 0;
      stop();
    },
    stop,
  };
}
