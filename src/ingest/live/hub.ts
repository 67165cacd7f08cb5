import type { FastifyBaseLogger } from 'fastify';
import type { InternalUsers } from '../projects/internal-users.ts';
import { isInternal } from '../read/internal-filter.ts';
import { MAX_MESSAGE_BYTES, type LiveBus } from './bus.ts';
import type { LiveRecord } from './records.ts';

/** Events sent on from one instance per flush (4 a second): beyond it they are counted as dropped, not queued. */
export const MAX_PER_FLUSH = 100;
export const FLUSH_MS = 250;
/** How often an instance with watchers says so, and how long other instances believe it. */
export const WATCH_EVERY_MS = 10_000;
const WATCH_TTL_MS = 3 * WATCH_EVERY_MS;

export interface LiveFilter {
  type?: string | undefined;
  user?: string | undefined;
  session?: string | undefined;
  /** Whether rejected events are wanted too. */
  rejected: boolean;
  /** The project's internal and test users, whose events (accepted and rejected) are left out (`internal=exclude`). */
  leaveOut?: InternalUsers | undefined;
}

export interface Watcher {
  projectId: string;
  filter: LiveFilter;
  /** Sends one server-sent event; the route cuts a client that does not read. */
  send(event: 'accepted' | 'rejected' | 'dropped', data: string): void;
}

type Message = { w: string[] } | { r: LiveRecord[] } | { d: Record<string, number> };

export interface LiveHub {
  /** Whether anyone, on any instance, watches this project (null: any project): the hot path's only cost otherwise. */
  watched(projectId: string | null): boolean;
  /** Records of events just accepted or rejected; kept only for watched projects, bounded per flush. */
  offer(records: readonly LiveRecord[]): void;
  /** How many more records this flush takes: a caller builds no more than that. */
  room(): number;
  /** Counts events of a project left out without being built (beyond `room`). */
  drop(projectId: string, count: number): void;
  /** The bus's messages, from every instance this one included. */
  deliver(message: string): void;
  /** Adds a watcher; `ready` is called once the bus has carried its announcement back (the other instances have it). */
  watch(watcher: Watcher, ready: () => void): () => void;
  watcherCount(): number;
  close(): Promise<void>;
}

function matches(filter: LiveFilter, r: LiveRecord): boolean {
  if (r.kind === 'rejected' && !filter.rejected) return false;
  if (filter.type !== undefined && r.type !== filter.type) return false;
  if (filter.user !== undefined && r.user_id !== filter.user) return false;
  if (filter.session !== undefined && r.session_id !== filter.session) return false;
  if (filter.leaveOut && isInternal(filter.leaveOut, r.user_id)) return false;
  return true;
}

/**
 * The live stream of one instance: what it offers goes out on the bus only while someone watches the project (told by
 * the watchers' instances every WATCH_EVERY_MS), at most MAX_PER_FLUSH events per FLUSH_MS, packed into notifications;
 * what comes in from the bus goes to this instance's watchers of the project, filtered here.
 */
export function createLiveHub(options: { bus: () => LiveBus; log: FastifyBaseLogger }): LiveHub {
  const watchedUntil = new Map<string, number>();
  const watchers = new Set<Watcher>();
  const waiting = new Map<string, (() => void)[]>();
  let outbox: LiveRecord[] = [];
  let dropped: Record<string, number> = {};
  let droppedAny = false;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const send = (messages: Message[]) => {
    if (closed || messages.length === 0) return;
    options
      .bus()
      .publish(messages.map((m) => JSON.stringify(m)))
      .catch((err: Error) => options.log.debug({ err: err.message }, 'live events: a notification was not sent'));
  };
  const announce = () => {
    const projects = [...new Set([...watchers].map((w) => w.projectId))];
    if (projects.length) send([{ w: projects }]);
  };
  const announcer = setInterval(announce, WATCH_EVERY_MS);
  announcer.unref();

  const flush = () => {
    timer = undefined;
    const records = outbox;
    const lost = dropped;
    outbox = [];
    dropped = {};
    const messages: Message[] = [];
    let batch: LiveRecord[] = [];
    let size = 10;
    for (const r of records) {
      const bytes = Buffer.byteLength(JSON.stringify(r)) + 1;
      if (bytes + 10 > MAX_MESSAGE_BYTES) continue;
      if (size + bytes > MAX_MESSAGE_BYTES) {
        messages.push({ r: batch });
        batch = [];
        size = 10;
      }
      batch.push(r);
      size += bytes;
    }
    if (batch.length) messages.push({ r: batch });
    if (droppedAny) messages.push({ d: lost });
    droppedAny = false;
    send(messages);
  };

  const watched = (projectId: string | null) => {
    if (watchedUntil.size === 0) return false;
    const now = Date.now();
    if (projectId === null) {
      for (const until of watchedUntil.values()) if (until > now) return true;
      return false;
    }
    const until = watchedUntil.get(projectId);
    return until !== undefined && until > now;
  };

  return {
    watched,
    offer(records) {
      for (const r of records) {
        if (!watched(r.project_id)) continue;
        if (outbox.length < MAX_PER_FLUSH) outbox.push(r);
        else if (r.project_id !== null) {
          dropped[r.project_id] = (dropped[r.project_id] ?? 0) + 1;
          droppedAny = true;
        }
      }
      if (outbox.length && !timer && !closed) timer = setTimeout(flush, FLUSH_MS);
    },
    room: () => Math.max(0, MAX_PER_FLUSH - outbox.length),
    drop(projectId, count) {
      if (count <= 0 || !watched(projectId)) return;
      dropped[projectId] = (dropped[projectId] ?? 0) + count;
      droppedAny = true;
      if (!timer && !closed) timer = setTimeout(flush, FLUSH_MS);
    },
    deliver(text) {
      let message: Message;
      try {
        message = JSON.parse(text) as Message;
      } catch {
        return;
      }
      if ('w' in message) {
        const until = Date.now() + WATCH_TTL_MS;
        for (const p of message.w) {
          watchedUntil.set(p, until);
          for (const ready of waiting.get(p) ?? []) ready();
          waiting.delete(p);
        }
        return;
      }
      if ('d' in message) {
        for (const w of watchers) {
          const n = message.d[w.projectId];
          if (n) w.send('dropped', JSON.stringify({ count: n }));
        }
        return;
      }
      for (const r of message.r)
        for (const w of watchers)
          if ((r.project_id === null || r.project_id === w.projectId) && matches(w.filter, r))
            w.send(r.kind, JSON.stringify(r));
    },
    watch(watcher, ready) {
      watchers.add(watcher);
      waiting.set(watcher.projectId, [...(waiting.get(watcher.projectId) ?? []), ready]);
      // Known here at once; the other instances learn it from the announcement.
      watchedUntil.set(watcher.projectId, Date.now() + WATCH_TTL_MS);
      send([{ w: [watcher.projectId] }]);
      return () => {
        watchers.delete(watcher);
        const left = waiting.get(watcher.projectId)?.filter((r) => r !== ready);
        if (left?.length) waiting.set(watcher.projectId, left);
        else waiting.delete(watcher.projectId);
      };
    },
    watcherCount: () => watchers.size,
    async close() {
      closed = true;
      clearInterval(announcer);
      clearTimeout(timer);
    },
  };
}
