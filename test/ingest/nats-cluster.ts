import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort } from '../support/free-port.ts';
import { tempDir } from '../support/tmp.ts';

const NATS_SERVER = process.env.NATS_SERVER ?? '/usr/sbin/nats-server';

export interface NatsNode {
  name: string;
  /** nats://127.0.0.1:<port> of its clients. */
  url: string;
  alive(): boolean;
  /** The running server's process id (for the benchmark's CPU accounting). */
  pid(): number | undefined;
  /** SIGKILL: no goodbye to the cluster, its unflushed writes gone. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store. */
  start(): Promise<void>;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every node's client URL, comma-separated (INGEST_JETSTREAM_SERVERS). */
  servers: string;
  /** Resolves once JetStream answers on some node (a meta leader is elected). */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A JetStream cluster of `size` nats-server processes on loopback ports, each with its own store under a temp folder,
 * routed to each other: what the stream's replicas need. Ports are found free just before (free-port.ts), so another
 * test file may take one first: a node that cannot bind fails its start with its log, and the cluster is started
 * again on other ports. `running` of them are started (the others wait for their `start()`: a cluster some of whose
 * servers have never joined).
 */
export async function startNatsCluster(size = 3, label = 'ingest', running = size): Promise<NatsCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(size, label, running);
    } catch (err) {
      if (attempt >= 5 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}

/** A node's start that failed: EADDRINUSE when a port it was given was taken meanwhile. */
function startFailed(message: string, log: string): Error {
  const err: NodeJS.ErrnoException = new Error(`${message}: ${log}`);
  if (/address already in use/.test(log)) err.code = 'EADDRINUSE';
  return err;
}

async function startOnce(size: number, label: string, running: number): Promise<NatsCluster> {
  const dir = tempDir(`nats-${label}-`);
  const nodes: (NatsNode & { child?: ChildProcess })[] = [];
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })),
  );
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`);
  for (let i = 0; i < size; i++) {
    const name = `n${i + 1}`;
    const store = join(dir.path, name);
    mkdirSync(store);
    const config = join(dir.path, `${name}.conf`);
    writeFileSync(
      config,
      [
        `server_name: ${name}`,
        `listen: 127.0.0.1:${ports[i]!.client}`,
        `jetstream { store_dir: "${store}" }`,
        `cluster {`,
        `  name: ${label.replace(/[^A-Za-z0-9]/g, '_')}`,
        `  listen: 127.0.0.1:${ports[i]!.route}`,
        `  routes: [${routes.filter((_, j) => j !== i).join(', ')}]`,
        `}`,
      ].join('\n'),
    );
    let log = '';
    const node: NatsNode & { child?: ChildProcess } = {
      name,
      url: `nats://127.0.0.1:${ports[i]!.client}`,
      alive: () => node.child !== undefined && node.child.exitCode === null && node.child.signalCode === null,
      pid: () => node.child?.pid,
      async kill() {
        const child = node.child;
        if (!child || !node.alive()) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      },
      async start() {
        log = '';
        const child = spawn(NATS_SERVER, ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
        node.child = child;
        child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
        // "Server is ready" comes before the route port is bound: a node that cannot bind it exits just after.
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(startFailed(`${name} did not start`, log)), 10_000);
          const check = () => {
            if (/Server is ready/.test(log) && /Listening for route connections/.test(log)) {
              clearTimeout(timer);
              child.stderr!.off('data', check);
              resolve();
            }
          };
          child.stderr!.on('data', check);
          child.once('exit', (code) => {
            clearTimeout(timer);
            reject(startFailed(`${name} exited (${code})`, log));
          });
        });
      },
    };
    nodes.push(node);
  }
  try {
    await Promise.all(nodes.slice(0, running).map((n) => n.start()));
  } catch (err) {
    await Promise.all(nodes.map((n) => n.kill()));
    dir.remove();
    throw err;
  }
  const servers = nodes.map((n) => n.url).join(',');
  return {
    nodes,
    servers,
    async ready(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const nc = await connect({ servers: nodes.filter((n) => n.alive()).map((n) => n.url) }).catch(() => undefined);
        try {
          if (nc) {
            const jsm = await jetstreamManager(nc, { timeout: 1_000 });
            await jsm.getAccountInfo();
            return;
          }
        } catch (err) {
          if (Date.now() > deadline) throw err;
        } finally {
          await nc?.close();
        }
        if (Date.now() > deadline) throw new Error('JetStream did not answer');
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.kill()));
      dir.remove();
    },
  };
}
