import { ConfigError, loadDotEnv } from './kit/config.ts';
import { DirectoryInUseError } from './kit/dir-lock.ts';
import { StartupError, databaseProblem, listenProblem } from './kit/start-errors.ts';
import type { App } from './kit/app.ts';
import type { CommandIO, Service } from './kit/service.ts';
import { EXIT, UsageError } from './kit/cli-runner.ts';
import { services } from './services.ts';
import { linkServices } from './platform/links.ts';
import pkg from '../package.json' with { type: 'json' };

const io: CommandIO = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

async function help(): Promise<void> {
  const lines = [
    'usage: platform <command> [arguments]',
    '',
    '  start [service ...]     start the services (all by default) and print their URLs; Ctrl-C stops them',
    '  migrate [service ...]   apply pending database migrations (all services by default)',
    '  help                    show this help; "platform <command> --help" shows one command\'s',
    '  --version               print the version',
  ];
  for (const s of services) {
    for (const u of await s.usage()) lines.push(`  ${s.name} ${u}`);
  }
  lines.push('', 'services:');
  for (const s of services) lines.push(`  ${s.name.padEnd(10)} port ${s.defaultPort}  ${s.description}`);
  if (services.length === 0) lines.push('  (none yet)');
  lines.push('', 'Service commands take --json to print their result as one JSON document, for scripts.');
  lines.push('Exit codes: 0 done, 1 failed (see the message), 2 usage error, 130 stopped by a second Ctrl-C.');
  lines.push(
    '',
    'Configuration comes from environment variables and an optional .env file: see docs/configuration.md.',
  );
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

const TOP_HELP: Record<string, string[]> = {
  start: [
    'usage: platform start [service ...]',
    '',
    "Starts the services (all by default), prints each one's URL, and runs until SIGINT or SIGTERM:",
    'requests in flight finish, background work stops, databases close. A second signal exits at once (130).',
    '',
    'Services started together are linked: with identity and dashboard, the dashboard signs people in with identity',
    "(a built-in client, nothing to configure), its first-run screen makes the owner's identity account, and its web",
    "app is the platform's console; audit and ingest accept identity's access tokens with nothing to register.",
  ],
  migrate: [
    'usage: platform migrate [service ...] [--json]',
    '',
    'Applies pending database migrations of the services (all by default) and exits.',
  ],
};

async function start(names: string[]): Promise<number> {
  const chosen = pick(names);
  if (chosen.length === 0) {
    io.err('no services are registered yet');
    return 1;
  }
  const loaded = chosen.map((s) => ({ service: s, loaded: s.load(process.env) }));
  // Services started together work together (the dashboard signs in with identity); each one started alone stays as configured.
  const links = linkServices(loaded.map((l) => ({ name: l.service.name, loaded: l.loaded })));
  for (const w of links.wired) io.out(`${'linked'.padEnd(10)} ${w}`);
  const running: { name: string; app: App }[] = [];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      io.err(`${signal} again: exiting now`);
      process.exit(EXIT.interrupted);
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
      links.built(service.name, app);
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

async function migrateAll(args: string[]): Promise<number> {
  const json = args.includes('--json');
  const names = args.filter((a) => a !== '--json');
  const unknownOption = names.find((a) => a.startsWith('-'));
  if (unknownOption) throw new UsageError(`migrate: unknown option ${unknownOption}`);
  const report: Record<string, string[]> = {};
  for (const s of pick(names)) {
    const applied = await s.load(process.env).migrate();
    report[s.name] = applied;
    if (!json) io.out(`${s.name}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`);
  }
  if (json) io.out(JSON.stringify({ applied: report }, null, 2));
  return EXIT.ok;
}

export async function main(argv: string[]): Promise<number> {
  loadDotEnv();
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      await help();
      return EXIT.ok;
    case '--version':
    case 'version':
      io.out(`platform ${pkg.version}`);
      return EXIT.ok;
    case 'start':
    case 'migrate':
      if (rest.includes('--help') || rest.includes('-h')) {
        io.out(TOP_HELP[command]!.join('\n'));
        return EXIT.ok;
      }
      return command === 'start' ? start(rest) : migrateAll(rest);
    default: {
      const service = services.find((s) => s.name === command);
      const run = service?.load(process.env).command;
      if (!service || !run) throw new UsageError(`unknown command "${command}"`);
      return run(rest, io);
    }
  }
}

try {
  const code = await main(process.argv.slice(2));
  // -1: servers are running; the process lives until a signal stops it.
  if (code >= 0) process.exit(code);
} catch (err) {
  const known =
    err instanceof ConfigError ||
    err instanceof UsageError ||
    err instanceof DirectoryInUseError ||
    err instanceof StartupError
      ? err
      : databaseProblem(err);
  if (known instanceof UsageError) {
    io.err(`platform: ${known.message}\nusage: platform <command> [arguments]   ("platform help" lists them)`);
    process.exit(EXIT.usage);
  }
  if (known) {
    io.err(`platform: ${known.message}`);
    process.exit(EXIT.failure);
  }
  io.err(`platform: ${(err as Error).stack ?? err}`);
  process.exit(1);
}
