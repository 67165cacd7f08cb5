import { ConfigError, int, list, str, type ConfigOf } from '../../kit/config.ts';

/**
 * The durable log in front of PostgreSQL (NATS JetStream), spread into the ingest service's spec by config.ts. Off
 * unless INGEST_JETSTREAM_SERVERS is set: PostgreSQL alone stays the default.
 */
export const logVariables = {
  jetstreamServers: list('INGEST_JETSTREAM_SERVERS', {
    default: [],
    // An address may carry a user and password.
    secret: true,
    doc: 'Comma-separated NATS servers of a JetStream cluster (`nats://10.0.0.1:4222,nats://10.0.0.2:4222`). Set: `POST /v1/events` answers 202 once the stream holds the events, and loaders write them to PostgreSQL (docs/ingest.md, "A durable log in front"). Empty: events are committed to PostgreSQL before the 202.',
  }),
  jetstreamStream: str('INGEST_JETSTREAM_STREAM', {
    default: 'INGEST_EVENTS',
    doc: 'Name of the stream, created at start when missing (an existing one is used as it is).',
  }),
  jetstreamSubject: str('INGEST_JETSTREAM_SUBJECT', {
    default: 'ingest.events',
    doc: 'Subject the events are published on; the stream takes it.',
  }),
  jetstreamReplicas: int('INGEST_JETSTREAM_REPLICAS', {
    default: 3,
    min: 1,
    max: 5,
    doc: 'Replicas of a stream created at start: a 202 waits until a majority of them hold the events. 3 needs a cluster of at least 3 servers; 1 for a single server (an event then lives on one disk until loaded).',
  }),
  jetstreamPlacementWaitSeconds: int('INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS', {
    default: 30,
    min: 0,
    max: 600,
    doc: 'How long a start waits for a JetStream cluster still forming: servers still joining (started together with ingest, or rebooting) answer "no suitable peers" just as a cluster too small for INGEST_JETSTREAM_REPLICAS does, and while the servers elect a leader (a server just killed, a quorum lost) requests time out. `0`: fail at once.',
  }),
  jetstreamDuplicateWindowSeconds: int('INGEST_JETSTREAM_DUPLICATE_WINDOW_SECONDS', {
    default: 120,
    min: 1,
    max: 86_400,
    doc: "The stream's de-duplication window when created: a retried (project, event_id) within it is taken once by the stream. Servers keep every id of the window in memory (about 100 bytes each); storage recognises retries after it anyway.",
  }),
  jetstreamMaxBytes: int('INGEST_JETSTREAM_MAX_BYTES', {
    default: 0,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    doc: "Most bytes the stream holds when created (events not loaded yet); past it new events are answered 503. `0`: only the servers' JetStream storage limits it.",
  }),
  jetstreamConsumer: str('INGEST_JETSTREAM_CONSUMER', {
    default: 'ingest-loader',
    doc: 'Durable consumer every loader shares (created when missing): each event goes to one loader at a time.',
  }),
  jetstreamLoaders: int('INGEST_JETSTREAM_LOADERS', {
    default: 1,
    min: 0,
    max: 64,
    doc: 'Loaders this ingest process runs (each writes batches of up to INGEST_COMMIT_MAX_EVENTS through the group commit). `0`: none; run `platform ingest loader` elsewhere.',
  }),
  jetstreamAckWaitSeconds: int('INGEST_JETSTREAM_ACK_WAIT_SECONDS', {
    default: 30,
    min: 1,
    max: 3_600,
    doc: "How long the stream waits for a loader to acknowledge an event (stored) before giving it to another loader; a crashed loader's events come back after it.",
  }),
};

export type LogConfig = ConfigOf<typeof logVariables>;

/** A server address as messages show it: a user and password in it are left out. */
export function withoutCredentials(server: string): string {
  return server.replace(/^([a-z]+:\/\/)?[^@/]*@/i, '$1');
}

/** Whether the log is turned on. */
export function logEnabled(config: LogConfig): boolean {
  return config.jetstreamServers.length > 0;
}

const SUBJECT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const NAME = /^[A-Za-z0-9_-]+$/;

/** Refuses settings NATS would refuse later, at start, naming the variable. */
export function checkLogConfig(config: LogConfig): void {
  for (const server of config.jetstreamServers) {
    let url: URL | undefined;
    try {
      url = new URL(server.includes('://') ? server : `nats://${server}`);
    } catch {}
    if (!url || !['nats:', 'tls:'].includes(url.protocol) || !url.hostname)
      throw new ConfigError(
        'INGEST_JETSTREAM_SERVERS',
        `INGEST_JETSTREAM_SERVERS: "${withoutCredentials(server)}" is not a NATS server address (nats://host:port or host:port)`,
      );
  }
  if (!SUBJECT.test(config.jetstreamSubject))
    throw new ConfigError(
      'INGEST_JETSTREAM_SUBJECT',
      'INGEST_JETSTREAM_SUBJECT must be dot-separated tokens of letters, digits, "_" and "-" (no wildcards)',
    );
  for (const [variable, value] of [
    ['INGEST_JETSTREAM_STREAM', config.jetstreamStream],
    ['INGEST_JETSTREAM_CONSUMER', config.jetstreamConsumer],
  ] as const) {
    if (!NAME.test(value))
      throw new ConfigError(variable, `${variable} must be letters, digits, "_" and "-" only, got "${value}"`);
  }
}
