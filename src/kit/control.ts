import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join, relative } from 'node:path';
import type { CommandIO } from './service.ts';

/**
 * The control socket: how a `platform <service> ...` command reaches the running platform that holds the service's
 * embedded data folder (PGlite opens a folder in one process only). The running process listens on a Unix socket in
 * the folder; a command that finds the folder held sends its arguments there, and the running process runs the very
 * same command against its open database, sending back each line of output and the exit code.
 *
 * Who may use it is who may use the folder: the socket sits in `<folder>/control`, a directory of mode 0700, and is
 * itself 0600, so only the folder's owner (and root) can connect. Nothing secret is kept on disk, no port is opened.
 *
 * The protocol is JSON lines: the command sends `{"argv":[...],"cwd":"..."}`; the platform answers with
 * `{"out":"line"}` and `{"err":"line"}` as the command prints, then `{"exit":code}`.
 */

export type RemoteRun = (args: string[], io: CommandIO) => Promise<number>;

/** The running platform could not be asked: printed as one line, like a configuration error. */
export class ControlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControlError';
  }
}

export interface ControlServer {
  path: string;
  /** Stops taking commands and waits for those running to end. */
  close(): Promise<void>;
}

/** Longest request line accepted: arguments are short, so more is not a command. */
const MAX_REQUEST = 64 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;
/** The longest socket path the kernel takes (108 bytes on Linux, 104 on macOS, with the terminating NUL). */
const MAX_SOCKET_PATH = 103;

export function controlSocketPath(folder: string): string {
  return join(folder, 'control', 'platform.sock');
}

/** The path to bind or connect to: the absolute one, or the same relative to the working folder when that is too long. */
function socketAddress(path: string): string {
  if (Buffer.byteLength(path) <= MAX_SOCKET_PATH) return path;
  const near = `./${relative(process.cwd(), path)}`;
  if (Buffer.byteLength(near) <= MAX_SOCKET_PATH) return near;
  throw new Error(`the control socket path ${path} is longer than a socket path may be; use a shorter DATA_DIR`);
}

/**
 * Listens for commands on `<folder>/control/platform.sock`, for `service` (the folder's owner), and runs each with
 * `run`. Call it while holding the folder's lock: a socket file already there is a dead process's and is replaced.
 */
export async function serveCommands(folder: string, service: string, run: RemoteRun): Promise<ControlServer> {
  const dir = join(folder, 'control');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid()))
    throw new Error(`${dir} is not a directory of this user`);
  // A folder made earlier with a wider mode, or by mkdir under another umask, is narrowed before the socket exists.
  chmodSync(dir, 0o700);
  const path = controlSocketPath(folder);
  rmSync(path, { force: true });
  const running = new Set<Promise<unknown>>();
  const server: Server = createServer((socket) => {
    const done = serveOne(socket, service, run).catch(() => {});
    running.add(done);
    void done.finally(() => running.delete(done));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketAddress(path), () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  let closing: Promise<void> | undefined;
  return {
    path,
    close: () =>
      (closing ??= (async () => {
        // Not waiting for close's callback: the connections end as their commands do, awaited next.
        server.close();
        await Promise.allSettled([...running]);
        rmSync(path, { force: true });
      })()),
  };
}

async function serveOne(socket: Socket, service: string, run: RemoteRun): Promise<void> {
  socket.on('error', () => {});
  socket.setEncoding('utf8');
  // A connection that sends no request is dropped, so it cannot hold the platform's stop.
  socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
  const send = (message: object) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  const request = await readRequest(socket);
  if (!request) {
    send({ err: 'platform: the control socket takes one JSON line {"argv":[...],"cwd":"..."}' });
    send({ exit: 2 });
    socket.end();
    return;
  }
  socket.setTimeout(0);
  const [name, ...args] = request.argv;
  let code: number;
  if (name !== service) {
    send({
      err: `platform: this is the ${service} service's control socket; it runs \`platform ${service} ...\` only`,
    });
    code = 2;
  } else {
    code = await run(args, {
      out: (line) => send({ out: line }),
      err: (line) => send({ err: line }),
      cwd: request.cwd,
    });
  }
  send({ exit: code });
  socket.end();
}

function readRequest(socket: Socket): Promise<{ argv: string[]; cwd: string } | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const finish = (value: { argv: string[]; cwd: string } | undefined) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      resolve(value);
    };
    const onEnd = () => finish(undefined);
    const onData = (chunk: string) => {
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl < 0) {
        if (text.length > MAX_REQUEST) finish(undefined);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.slice(0, nl));
      } catch {
        return finish(undefined);
      }
      const r = parsed as { argv?: unknown; cwd?: unknown };
      const valid =
        Array.isArray(r.argv) &&
        r.argv.length > 0 &&
        r.argv.every((a) => typeof a === 'string') &&
        typeof r.cwd === 'string' &&
        r.cwd.startsWith('/');
      finish(valid ? { argv: r.argv as string[], cwd: r.cwd as string } : undefined);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
  });
}

/**
 * Sends `argv` (`[service, ...arguments]`) to the platform holding `folder`, printing what it prints; answers the
 * command's exit code, or undefined when nothing listens there (no socket, or nobody accepting on it).
 */
export function sendCommand(folder: string, argv: string[], io: CommandIO): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let address: string;
    try {
      address = socketAddress(controlSocketPath(folder));
    } catch (err) {
      reject(err);
      return;
    }
    const socket = createConnection(address);
    socket.setEncoding('utf8');
    let connected = false;
    let exit: number | undefined;
    let text = '';
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ argv, cwd: process.cwd() })}\n`);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
        let message: { out?: string; err?: string; exit?: number };
        try {
          message = JSON.parse(text.slice(0, nl));
        } catch {
          socket.destroy();
          reject(new ControlError(`${controlSocketPath(folder)} answered outside the control protocol`));
          return;
        }
        text = text.slice(nl + 1);
        if (typeof message.out === 'string') io.out(message.out);
        if (typeof message.err === 'string') io.err(message.err);
        if (typeof message.exit === 'number') exit = message.exit;
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // Hung up on: 'close' follows and tells whether the command had ended.
      if (connected && (err.code === 'EPIPE' || err.code === 'ECONNRESET')) return;
      if (!connected && (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')) resolve(undefined);
      else if (!connected && err.code === 'EACCES')
        reject(
          new ControlError(
            `cannot use the control socket ${controlSocketPath(folder)}: the platform runs as another user; run the command as that user`,
          ),
        );
      else reject(new ControlError(`the control socket ${controlSocketPath(folder)} failed: ${err.message}`));
    });
    socket.on('close', () => {
      if (!connected) return;
      if (exit === undefined)
        reject(new ControlError('the platform closed the control socket before the command ended (did it stop?)'));
      else resolve(exit);
    });
  });
}
