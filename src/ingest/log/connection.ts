import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
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
 * A cluster whose servers are still starting or joining answers "no suitable peers for placement" just as one too
 * small for the replicas does: a start alongside the cluster (a compose file, a reboot) asks again this often, for
 * INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS.
 */
const PLACEMENT_RETRY_MS = 250;

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
    const jsm = await jetstreamManager(nc, { timeout: 5_000 });
    await ensureStream(jsm, config);
    await ensureConsumer(jsm, config);
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

async function ensureStream(jsm: JetStreamManager, config: LogConfig): Promise<void> {
  const name = config.jetstreamStream;
  try {
    const info = await jsm.streams.info(name);
    if (!info.config.subjects?.includes(config.jetstreamSubject))
      throw new StartupError(
        `stream ${name} exists but does not take subject ${config.jetstreamSubject} (its subjects: ${info.config.subjects?.join(', ') || 'none'}): set INGEST_JETSTREAM_SUBJECT to one of them, or INGEST_JETSTREAM_STREAM to another stream`,
      );
    return;
  } catch (err) {
    if (!notFound(err, JetStreamApiCodes.StreamNotFound)) throw err;
  }
  const placementDeadline = Date.now() + config.jetstreamPlacementWaitSeconds * 1000;
  for (;;) {
    try {
      await jsm.streams.add(streamConfig(config));
      return;
    } catch (err) {
      // Another instance created it meanwhile.
      if ((await jsm.streams.info(name).catch(() => undefined)) !== undefined) return;
      const message = (err as Error).message;
      const noPeers = /no suitable peers/i.test(message);
      if (noPeers && Date.now() < placementDeadline) {
        await sleep(PLACEMENT_RETRY_MS);
        continue;
      }
      const replicas =
        noPeers || /insufficient resources|replicas/i.test(message)
          ? ` (INGEST_JETSTREAM_REPLICAS=${config.jetstreamReplicas} needs a cluster of at least that many JetStream servers${noPeers ? `, all running: tried for ${config.jetstreamPlacementWaitSeconds} s (INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS)` : ''})`
          : '';
      throw new StartupError(`cannot create stream ${name}: ${message}${replicas}`, { cause: err });
    }
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

async function ensureConsumer(jsm: JetStreamManager, config: LogConfig): Promise<void> {
  const stream = config.jetstreamStream;
  const name = config.jetstreamConsumer;
  try {
    await jsm.consumers.info(stream, name);
    return;
  } catch (err) {
    if (!notFound(err, JetStreamApiCodes.ConsumerNotFound)) throw err;
  }
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
    if ((await jsm.consumers.info(stream, name).catch(() => undefined)) === undefined) throw err;
  }
}
