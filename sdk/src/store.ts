import type { IngestEvent } from './types.ts';

/** Where queued events are kept between page loads: IndexedDB when it opens, nothing otherwise. */
export interface EventStore {
  load(): Promise<IngestEvent[]>;
  put(events: readonly IngestEvent[]): void;
  remove(ids: readonly string[]): void;
  clear(): void;
}

const noStore: EventStore = { load: async () => [], put() {}, remove() {}, clear() {} };

/** Events keyed by `event_id`, so a resend after a reload is the same event and the service keeps it once. */
export async function openStore(projectId: string, enabled: boolean): Promise<EventStore> {
  if (!enabled || typeof indexedDB === 'undefined') return noStore;
  const db = await new Promise<IDBDatabase | undefined>((resolve) => {
    try {
      const req = indexedDB.open(`ingest-sdk-${projectId}`, 1);
      req.onupgradeneeded = () => req.result.createObjectStore('events', { keyPath: 'event_id' });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(undefined);
    } catch {
      resolve(undefined);
    }
  });
  if (!db) return noStore;
  const write = (work: (s: IDBObjectStore) => void) => {
    try {
      const tx = db.transaction('events', 'readwrite');
      work(tx.objectStore('events'));
    } catch {
      // A failed write only costs persistence across a reload; the queue in memory still holds the events.
    }
  };
  return {
    load: () =>
      new Promise((resolve) => {
        try {
          const req = db.transaction('events').objectStore('events').getAll();
          req.onsuccess = () =>
            resolve(
              (req.result as IngestEvent[]).sort((a, b) => a['event.timestamp'].localeCompare(b['event.timestamp'])),
            );
          req.onerror = () => resolve([]);
        } catch {
          resolve([]);
        }
      }),
    put: (events) =>
      write((s) => {
        for (const e of events) s.put(e);
      }),
    remove: (ids) =>
      write((s) => {
        for (const id of ids) s.delete(id);
      }),
    clear: () => write((s) => s.clear()),
  };
}
