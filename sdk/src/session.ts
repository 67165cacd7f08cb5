import { uuid } from './ids.ts';

interface SessionState {
  id: string;
  /** When the last event of the session was made (ms). */
  last: number;
  /** The last `event.sequence` given out. */
  seq: number;
}

/**
 * The session lives in sessionStorage (one per tab, gone when the tab closes, no cookie) and is renewed after
 * `timeoutMs` without an event, as analytics tools do; `event.sequence` counts from 1 within it.
 */
export function createSession(projectId: string, timeoutMs: number) {
  const key = `ingest.session.${projectId}`;
  let memory: SessionState | undefined;
  const read = (): SessionState | undefined => {
    try {
      const raw = sessionStorage.getItem(key);
      return raw ? (JSON.parse(raw) as SessionState) : memory;
    } catch {
      return memory;
    }
  };
  const write = (s: SessionState) => {
    memory = s;
    try {
      sessionStorage.setItem(key, JSON.stringify(s));
    } catch {
      // Storage can be full or refused (sandboxed frames); the session then lasts as long as the page.
    }
  };
  return {
    /** Removes the session from the tab's storage: the next event, if any, starts a new one. */
    forget() {
      memory = undefined;
      try {
        sessionStorage.removeItem(key);
      } catch {
        // Nothing could be stored either.
      }
    },
    /** The session id and the next sequence number for a new event. */
    next(now: number): { id: string; sequence: number } {
      let s = read();
      if (!s || typeof s.id !== 'string' || now - s.last > timeoutMs) s = { id: uuid(), last: now, seq: 0 };
      s = { id: s.id, last: now, seq: s.seq + 1 };
      write(s);
      return { id: s.id, sequence: s.seq };
    },
  };
}
