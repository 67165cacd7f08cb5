import { ConfigError, loadDotEnv } from './kit/config.ts';
import { DirectoryInUseError } from './kit/dir-lock.ts';
import { StartupError, databaseProblem, listenProblem } from './kit/start-errors.ts';
import type { App } from './kit/app.ts';
import type { CommandIO, Service } from './kit/service.ts';
import { services } from './services.ts';

const io: CommandIO = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

function help(): void {
  const lines = [
    'usage: platform <command> [arguments]',
    '',
    '  start [service ...]     start the services (all by default) and print their URLs; Ctrl-C stops them',
    '  migrate [service ...]   apply pending database migrations (all services by default)',
    '  help                    show this help',
  ];
  for (const s of services) {
    for (const u of s.usage) lines.push(`  ${s.name} ${u}`);
  }
  lines.push('', 'services:');
  for (const s of services) lines.push(`  ${s.name.padEnd(10)} port ${s.defaultPort}  ${s.description}`);
  if (services.length === 0) lines.push('  (none yet)');
  lines.push('', 'Configuration comes from environment variables and an optional .env file: see docs/configuration.md.');
  io.out(lines.join('\n'));
}

function pick(names: string[]): Service[] {
  if (names.length === 0) return services;
  return names.map((n) => {
    const s = services.find((x) => x.name === n);
    if (!s) throw new UsageError(`unknown service "${n}"; known: ${services.map((x) => x.name).join(', ') || 'none'}`);
    return s;
  });
}

class UsageError extends Error {}

async function start(names: string[]): Promise<number> {
  const chosen = pick(names);
  if (chosen.length === 0) {
    io.err('no services are registered yet');
    return 1;
  }
  const loaded = chosen.map((s) => ({ service: s, loaded: s.load(process.env) }));
  const running: { name: string; app: App }[] = [];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      io.err(`${signal} again: exiting now`);
      process.exit(130);
    }
    stopping = true;
    io.err(`${signal}: stopping (finishing requests in flight)`);
    const results = await Promise.allSettled(running.map((r) => r.app.close()));
    const failed = results.filter((r) => r.status === 'rejected');
    for (const f of failed) io.err(`error while stopping: ${(f as PromiseRejectedResult).reason}`);
    process.exit(failed.length ? 1 : 0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  try {
    for (const { service, loaded: l } of loaded) {
      let app: App;
      try {
        app = await l.buildApp();
      } catch (err) {
        const problem = err instanceof StartupError ? err : databaseProblem(err);
        throw problem ? new StartupError(`${service.name}: ${problem.message}`, { cause: err }) : err;
      }
      running.push({ name: service.name, app });
      try {
        await app.listen({ host: l.address.host, port: l.address.port });
      } catch (err) {
        throw listenProblem(err, service.name, l.address.host, l.address.port) ?? err;
      }
      const addr = app.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : l.address.port;
      const shownHost = l.address.host === '0.0.0.0' || l.address.host === '::' ? 'localhost' : l.address.host;
      io.out(`${service.name.padEnd(10)} http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`);
    }
  } catch (err) {
    await Promise.allSettled(running.map((r) => r.app.close()));
    throw err;
  }
  return -1;
}

async function migrateAll(names: string[]): Promise<number> {
  for (const s of pick(names)) {
    const applied = await s.load(process.env).migrate();
    io.out(`${s.name}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`);
  }
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  loadDotEnv();
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      help();
      return 0;
    case 'start':
      return start(rest);
    case 'migrate':
      return migrateAll(rest);
    default: {
      const service = services.find((s) => s.name === command);
      const run = service?.load(process.env).command;
      if (!service || !run) throw new UsageError(`unknown command "${command}"; run "platform help"`);
      return run(rest, io);
    }
  }
}

try {
  const code = await main(process.argv.slice(2));
  // -1: servers are running; the process lives until a signal stops it.
  if (code >= 0) process.exit(code);
} catch (err) {
  const known = err instanceof ConfigError || err instanceof UsageError || err instanceof DirectoryInUseError || err instanceof StartupError ? err : databaseProblem(err);
  if (known) {
    io.err(`platform: ${known.message}`);
    process.exit(known instanceof UsageError ? 2 : 1);
  }
  io.err(`platform: ${(err as Error).stack ?? err}`);
  process.exit(1);
}
