import type { JetStreamManager } from '@nats-io/jetstream';

/** Events the stream holds (acknowledged to clients, not yet stored) and the age of the oldest, in seconds. */
export interface Backlog {
  events: number;
  seconds: number;
}

export interface StreamBacklog {
  /** The stream's backlog now (read at most once a second); undefined when the stream does not answer. */
  read(): Promise<Backlog | undefined>;
}

/**
 * The stream keeps an event until a loader acknowledged it stored (work-queue retention), so what it holds is what
 * storage lacks, and its first message is the oldest of those. One stream info request answers both.
 */
export function streamBacklog(jsm: JetStreamManager, stream: string, now: () => number = Date.now): StreamBacklog {
  let last: { at: number; value: Backlog | undefined } | undefined;
  let inFlight: Promise<Backlog | undefined> | undefined;
  const fetch = async (): Promise<Backlog | undefined> => {
    try {
      const { state } = await jsm.streams.info(stream);
      const oldest = Date.parse(state.first_ts);
      return {
        events: state.messages,
        seconds: state.messages > 0 && Number.isFinite(oldest) ? Math.max(0, (now() - oldest) / 1000) : 0,
      };
    } catch {
      return undefined;
    }
  };
  return {
    read() {
      if (last && now() - last.at < 1_000) return Promise.resolve(last.value);
      inFlight ??= fetch()
        .then((value) => {
          last = { at: now(), value };
          return value;
        })
        .finally(() => (inFlight = undefined));
      return inFlight;
    },
  };
}
