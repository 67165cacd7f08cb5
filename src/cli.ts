import './kit/compile-cache.ts';
import { loadDotEnv } from './kit/config.ts';
import { DirectoryInUseError } from './kit/dir-lock.ts';
import type { CommandIO, Service } from './kit/service.ts';
import { EXIT, UsageError, reportFailure } from './kit/cli-runner.ts';
import { services } from './services.ts';
import { runServiceCommand } from './platform/commands.ts';
import { startPlatform } from './platform/start.ts';
import pkg from '../package.json' with { type: 'json' };

const io: CommandIO = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
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
    '',
    'On embedded storage, "platform <service> ..." commands typed while it runs are run by it, on its open databases',
    '(a control socket in each data folder, for its owner only). Run by npm, it stops when npm does.',
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
  await startPlatform(chosen, process.env, io);
  return -1;
}

async function migrateAll(args: string[]): Promise<number> {
  const json = args.includes('--json');
  const names = args.filter((a) => a !== '--json');
  const unknownOption = names.find((a) => a.startsWith('-'));
  if (unknownOption) throw new UsageError(`migrate: unknown option ${unknownOption}`);
  const report: Record<string, string[]> = {};
  for (const s of pick(names)) {
    let applied: string[];
    try {
      applied = await s.load(process.env).migrate();
    } catch (err) {
      if (err instanceof DirectoryInUseError && err.holder.command === 'start')
        throw new DirectoryInUseError(
          err.dir,
          err.holder,
          `the running platform applied ${s.name}'s migrations when it started; migrate runs while the platform is stopped`,
        );
      throw err;
    }
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
      if (!service) throw new UsageError(`unknown command "${command}"`);
      return runServiceCommand(service, rest, process.env, io);
    }
  }
}

try {
  const code = await main(process.argv.slice(2));
  // -1: servers are running; the process lives until a signal stops it.
  if (code >= 0) process.exit(code);
} catch (err) {
  process.exit(reportFailure(err, io));
}
