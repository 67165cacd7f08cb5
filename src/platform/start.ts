import type { App } from '../kit/app.ts';
import { EXIT, reportFailure } from '../kit/cli-runner.ts';
import { serveCommands, type ControlServer } from '../kit/control.ts';
import { isDatabaseUnavailable } from '../kit/db.ts';
import { DirectoryInUseError } from '../kit/dir-lock.ts';
import { setLogFormat } from '../kit/logger.ts';
import type { CommandIO, LoadedService, Service } from '../kit/service.ts';
import { StartupError, databaseProblem, listenProblem } from '../kit/start-errors.ts';
import { linkServices } from './links.ts';

interface Started {
  name: string;
  loaded: LoadedService;
  app?: App;
  control?: ControlServer;
}

/** How often a platform run by npm checks that npm is still there. */
const PARENT_CHECK_MS = 500;

/**
 * `platform start`: builds every chosen service at once, then has them all listen at once, and prints each URL. Any
 * failure closes everything already built (nothing stays half-started) and is thrown as one line. Services on embedded
 * storage take `platform <service> ...` commands on their control socket while they run (src/kit/control.ts).
 * Resolves once every service listens; SIGINT, SIGTERM, or the end of the npm process that ran it, stops them.
 */
export async function startPlatform(chosen: Service[], env: NodeJS.ProcessEnv, io: CommandIO): Promise<void> {
  const started: Started[] = chosen.map((s) => ({ name: s.name, loaded: s.load(env) }));
  setLogFormat(started[0]!.loaded.logFormat);
  // Services started together work together (the dashboard signs in with identity); each one started alone stays as configured.
  const links = linkServices(started.map((s) => ({ name: s.name, loaded: s.loaded })));
  for (const w of links.wired) io.out(`${'linked'.padEnd(10)} ${w}`);

  let stopping = false;
  let starting: Promise<unknown> = Promise.resolve();
  /** Closes every service, each as far as it goes (Fastify runs every close hook even after one failed); answers who failed. */
  const closeAll = async () => {
    const controls = await Promise.allSettled(started.map((s) => s.control?.close()));
    const apps = await Promise.allSettled(started.map((s) => s.app?.close()));
    return [...controls, ...apps].flatMap((r, i) =>
      r.status === 'rejected' ? [{ name: started[i % started.length]!.name, reason: r.reason as unknown }] : [],
    );
  };
  const stop = async (reason: string) => {
    if (stopping) {
      io.err(`${reason} again: exiting now`);
      process.exit(EXIT.interrupted);
    }
    stopping = true;
    io.err(`${reason}: stopping (finishing requests in flight)`);
    // A stop during the start waits for the builds under way, so that what they opened is closed too.
    await starting.catch(() => {});
    const failed = await closeAll();
    for (const f of failed) io.err(stopFailure(f.name, f.reason));
    process.exit(failed.length ? EXIT.failure : EXIT.ok);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  watchNpm(() => void stop('npm, which started the platform, ended'));

  starting = Promise.allSettled(started.map((s) => build(s, links.built, io)));
  await firstFailure((await starting) as PromiseSettledResult<unknown>[], closeAll);
  // Stopped while building: stop() closes what was built and exits.
  if (stopping) return new Promise<void>(() => {});
  starting = Promise.allSettled(started.map((s) => listen(s)));
  await firstFailure((await starting) as PromiseSettledResult<unknown>[], closeAll);
  if (stopping) return new Promise<void>(() => {});
  for (const s of started) io.out(`${s.name.padEnd(10)} ${shownUrl(s)}`);
}

/** One line naming the service, never a stack: what failed is the stop's last step, and the process ends after it. */
function stopFailure(name: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return isDatabaseUnavailable(err)
    ? `${name}: the database could not be reached while stopping: ${message}`
    : `${name}: error while stopping: ${message}`;
}

async function build(s: Started, built: (name: string, app: App) => void, io: CommandIO): Promise<void> {
  try {
    s.app = await s.loaded.buildApp();
  } catch (err) {
    throw startError(s.name, err);
  }
  built(s.name, s.app);
  if (s.loaded.dataFolder && s.loaded.command && process.platform !== 'win32') {
    const app = s.app;
    try {
      s.control = await serveCommands(s.loaded.dataFolder, s.name, (args, cio) => runHere(s, app, args, cio));
    } catch (err) {
      // The platform runs without it; commands then say the folder is in use, as before there was one.
      io.err(`${s.name}: commands cannot reach this process while it runs: ${(err as Error).message}`);
    }
  }
}

function startError(name: string, err: unknown): unknown {
  if (err instanceof DirectoryInUseError)
    return new StartupError(
      `${name}: ${new DirectoryInUseError(err.dir, err.holder, err.holder.command === 'start' ? 'the platform is already running; stop it first, or use it as it is' : 'stop it first, or wait for it to end').message}`,
      { cause: err },
    );
  const problem = err instanceof StartupError ? err : databaseProblem(err);
  return problem ? new StartupError(`${name}: ${problem.message}`, { cause: err }) : err;
}

async function listen(s: Started): Promise<void> {
  const { host, port } = s.loaded.address;
  try {
    await s.app!.listen({ host, port });
  } catch (err) {
    throw listenProblem(err, s.name, host, port) ?? err;
  }
}

/** The first failure in the services' order, thrown after everything is closed. */
async function firstFailure(results: PromiseSettledResult<unknown>[], closeAll: () => Promise<unknown>): Promise<void> {
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!failed) return;
  await closeAll();
  throw failed.reason;
}

/** A command sent over the control socket, run in this process on the service's open database. */
async function runHere(s: Started, app: App, args: string[], io: CommandIO): Promise<number> {
  // The words naming the command only (at most two, before any option): its arguments may carry a secret.
  const words: string[] = [];
  for (const a of args.slice(0, 2)) {
    if (!/^[a-z][a-z-]*$/.test(a)) break;
    words.push(a);
  }
  const command = words.join(' ');
  let code: number;
  try {
    code = await s.loaded.command!(args, io);
  } catch (err) {
    code = reportFailure(err, io);
  }
  app.log.info({ command, exit: code }, 'ran a command from the control socket');
  return code;
}

function shownUrl(s: Started): string {
  const { host, port } = s.loaded.address;
  const addr = s.app!.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound}`;
}

/**
 * Run by npm (`npm start`, `npx platform start`), the platform lives as long as npm does: stopping npm stops it. npm
 * passes SIGINT and SIGTERM on to its script, but a shell between them (dash, as /bin/sh on Debian, forks the
 * script's command instead of replacing itself) dies of the signal and leaves the platform running, holding its ports;
 * and a `kill -9` of npm passes nothing on. Either way this process gets a new parent, which is what is watched.
 */
function watchNpm(onGone: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  timer.unref();
}
