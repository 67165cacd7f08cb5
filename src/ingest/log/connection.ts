import { setTimeout as sleep } from 'node:timers/promises';
import { connect, NoRespondersError, RequestError, TimeoutError, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { StartupError } from '../../kit/start-errors.ts';
import { withoutCredentials, type LogConfig } from './config.ts';

/**
 * A cluster that is still forming cannot answer yet: servers still starting or joining answer "no suitable peers for
 * placement" just as a cluster too small for the replicas does, and while the servers elect a new leader after one
 * went down (a reboot, a server just killed) requests time out. A start alongside the cluster (a compose file, a
 * reboot) asks again this often, for INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS.
 */
const FORMING_RETRY_MS = 250;

/** Loaders may hold this many events between delivery and acknowledgement, all loaders together. */
const MAX_ACK_PENDING = 200_000;

export interface LogConnection {
  nc: NatsConnection;
  jsm: JetStreamManager;
  close(): Promise<void>;
}

/**
 * Connects to the JetStream cluster and makes sure the stream and the loaders' durable consumer exist (created when
 * missing; an existing one is used as it is, so an operator may change it with the `nats` tool). Once connected the
 * client reconnects for ever: while no server answers, publishing fails (503) and loaders wait.
 */
export async function openLog(config: LogConfig, name: string): Promise<LogConnection> {
  const servers = config.jetstreamServers;
  const shown = servers.map(withoutCredentials);
  let nc: NatsConnection;
  try {
    nc = await connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5_000 });
  } catch (err) {
    throw new StartupError(`cannot reach NATS at ${shown.join(', ')}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const forming = clusterForming(config.jetstreamPlacementWaitSeconds);
    const jsm = await forming(() => jetstreamManager(nc, { timeout: 5_000 }));
    await ensureStream(jsm, config, forming);
    await ensureConsumer(jsm, config, forming);
    return { nc, jsm, close: () => nc.drain().catch(() => nc.close()) };
  } catch (err) {
    await nc.close();
    if (err instanceof StartupError) throw err;
    throw new StartupError(
      `JetStream at ${shown.join(', ')} cannot hold stream ${config.jetstreamStream}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

function notFound(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

/** Whether `err` is what a cluster still forming answers (above), rather than a refusal that asking again cannot change. */
function whileForming(err: unknown): boolean {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : undefined;
  return [err, cause].some(
    (e) =>
      e instanceof TimeoutError ||
      e instanceof NoRespondersError ||
      (e instanceof RequestError && e.isNoResponders()) ||
      (e instanceof Error && /no suitable peers|temporarily unavailable/i.test(e.message)),
  );
}

type Forming = <T>(step: () => Promise<T>) => Promise<T>;

/** Runs a step of the start again while the cluster answers as one still forming, until `waitSeconds` from now. */
function clusterForming(waitSeconds: number): Forming {
  const deadline = Date.now() + waitSeconds * 1000;
  return async (step) => {
    for (;;) {
      try {
        return await step();
      } catch (err) {
        if (!whileForming(err) || Date.now() >= deadline) throw err;
        await sleep(FORMING_RETRY_MS);
      }
    }
  };
}

async function ensureStream(jsm: JetStreamManager, config: LogConfig, forming: Forming): Promise<void> {
  const name = config.jetstreamStream;
  try {
    const info = await forming(() => jsm.streams.info(name));
    if (!info.config.subjects?.includes(config.jetstreamSubject))
      throw new StartupError(
        `stream ${name} exists but does not take subject ${config.jetstreamSubject} (its subjects: ${info.config.subjects?.join(', ') || 'none'}): set INGEST_JETSTREAM_SUBJECT to one of them, or INGEST_JETSTREAM_STREAM to another stream`,
      );
    return;
  } catch (err) {
    if (!notFound(err, JetStreamApiCodes.StreamNotFound)) throw err;
  }
  try {
    await forming(async () => {
      try {
        await jsm.streams.add(streamConfig(config));
      } catch (err) {
        // Another instance created it meanwhile.
        if ((await jsm.streams.info(name).catch(() => undefined)) === undefined) throw err;
      }
    });
  } catch (err) {
    const message = (err as Error).message;
    const noPeers = /no suitable peers/i.test(message);
    const replicas =
      noPeers || /insufficient resources|replicas/i.test(message)
        ? ` (INGEST_JETSTREAM_REPLICAS=${config.jetstreamReplicas} needs a cluster of at least that many JetStream servers${noPeers ? `, all running: tried for ${config.jetstreamPlacementWaitSeconds} s (INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS)` : ''})`
        : whileForming(err)
          ? ` (the cluster did not answer for ${config.jetstreamPlacementWaitSeconds} s: INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS)`
          : '';
    throw new StartupError(`cannot create stream ${name}: ${message}${replicas}`, { cause: err });
  }
}

function streamConfig(config: LogConfig): Partial<StreamConfig> & { name: string } {
  return {
    name: config.jetstreamStream,
    subjects: [config.jetstreamSubject],
    // Each event is removed once a loader acknowledged it (stored): the stream holds only what storage lacks.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas: config.jetstreamReplicas,
    duplicate_window: config.jetstreamDuplicateWindowSeconds * 1e9,
    // Full: new events are refused (503 to the client), never old ones dropped.
    discard: DiscardPolicy.New,
    max_bytes: config.jetstreamMaxBytes > 0 ? config.jetstreamMaxBytes : -1,
  };
}

async function ensureConsumer(jsm: JetStreamManager, config: LogConfig, forming: Forming): Promise<void> {
  const stream = config.jetstreamStream;
  const name = config.jetstreamConsumer;
  try {
    await forming(() => jsm.consumers.info(stream, name));
    return;
  } catch (err) {
    if (!notFound(err, JetStreamApiCodes.ConsumerNotFound)) throw err;
  }
  await forming(async () => {
    try {
      await jsm.consumers.add(stream, {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: config.jetstreamAckWaitSeconds * 1e9,
        max_deliver: -1,
        max_ack_pending: MAX_ACK_PENDING,
      });
    } catch (err) {
      // Another instance created it meanwhile.
      if ((await jsm.consumers.info(stream, name).catch(() => undefined)) === undefined) throw err;
    }
  });
}
