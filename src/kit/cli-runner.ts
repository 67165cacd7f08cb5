import { shellExports } from './shell-exports.ts';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ConfigError } from './config.ts';
import { ControlError } from './control.ts';
import { DirectoryInUseError } from './dir-lock.ts';
import type { CommandIO } from './service.ts';
import { StartupError, databaseProblem } from './start-errors.ts';

/**
 * Exit codes of every `platform` command (docs/architecture.md lists them for scripts):
 * 0 done; 1 the command ran and failed (not found, conflict, configuration, database unreachable);
 * 2 usage (unknown command, bad or missing argument); 130 stopped by a second Ctrl-C.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

/** Wrong use of a command: answered with the command's usage, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command ran and could not do what was asked (no such thing, already exists): its message, exit 1. */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}

type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface CommandContext {
  values: Values;
  positionals: string[];
  io: CommandIO;
  /** `--json` was given: print one JSON document on stdout, for scripts. */
  json: boolean;
  /** Prints the result: `data` as JSON with --json, otherwise the human lines. */
  result(data: unknown, lines: string[]): void;
}

export interface Command {
  /** The words naming it after the service, e.g. ['apps', 'create']. */
  path: string[];
  /** Its arguments, e.g. `--name NAME [--type TYPE]`. */
  synopsis: string;
  /** One line: what it does. */
  summary: string;
  /** Longer help: option by option, shown by `--help`. */
  details?: string[];
  options?: ParseArgsOptionsConfig;
  /**
   * Options whose values are paths of files or folders: resolved against the folder the command was typed in, which
   * is not the running platform's when the command reaches it over the control socket (src/kit/control.ts).
   */
  paths?: string[];
  /** Options that must be given. */
  required?: string[];
  /** How many positional arguments it takes. */
  positionals?: { min: number; max: number };
  /**
   * The ids and secrets of its result as shell variables: given, the command takes `--export` and prints
   * `export NAME='value'` lines, for `eval "$(platform ... --export)"` in scripts and the README's walk.
   */
  exports?(data: never): Record<string, string | undefined>;
  /** Answers its exit code when it has one of its own (a CI gate's), else exits 0 once it resolves. */
  // biome-ignore lint/suspicious/noConfusingVoidType: most commands' run is an async function returning nothing (void)
  run(ctx: CommandContext): Promise<void | number>;
}

export interface CommandGroup {
  /** `platform <name> ...`. */
  name: string;
  commands: Command[];
  /** Maps a service's own errors to a usage error or a failure (exit 2 or 1); anything else propagates. */
  classify?(err: unknown): UsageError | CommandFailure | undefined;
}

/** One line per command for `platform help`. */
export function usageLines(group: CommandGroup): string[] {
  return group.commands.map(
    (c) => `${[...c.path, c.synopsis].filter(Boolean).join(' ')}`.padEnd(40) + `  ${c.summary}`,
  );
}

function commandHelp(group: CommandGroup, c: Command): string[] {
  return [
    `usage: platform ${group.name} ${[...c.path, c.synopsis].filter(Boolean).join(' ')} [--json]${c.exports ? ' [--export]' : ''}`,
    '',
    c.summary,
    ...(c.details?.length ? ['', ...c.details.map((d) => `  ${d}`)] : []),
    '',
    '  --json        print the result as one JSON document (for scripts)',
    ...(c.exports
      ? [
          `  --export      print ${Object.keys(c.exports({} as never)).join(', ')} as shell export lines (eval "$(...)")`,
        ]
      : []),
    '  --help, -h    show this help',
  ];
}

/**
 * Runs `platform <group> <words...> [arguments]`: finds the command, parses its arguments strictly,
 * answers `--help` for any command, and turns errors into the one format every command shares
 * (`platform: <problem>` then the usage line, exit 2; `platform <group> <command>: <problem>`, exit 1).
 */
export async function runCommand(group: CommandGroup, args: string[], io: CommandIO): Promise<number> {
  const command = group.commands
    .filter((c) => c.path.every((w, i) => args[i] === w))
    .sort((a, b) => b.path.length - a.path.length)[0];
  const wantsHelp = args.includes('--help') || args.includes('-h');
  if (!command) {
    if (wantsHelp || args.length === 0) {
      io.out(
        [
          `usage: platform ${group.name} <command> [arguments] [--json]`,
          '',
          ...usageLines(group).map((l) => `  ${l}`),
          '',
          `"platform ${group.name} <command> --help" shows a command's options.`,
        ].join('\n'),
      );
      return wantsHelp ? EXIT.ok : EXIT.usage;
    }
    return usage(
      io,
      `unknown command "${group.name} ${args.join(' ')}"`,
      usageLines(group).map((l) => `platform ${group.name} ${l}`),
    );
  }
  if (wantsHelp) {
    io.out(commandHelp(group, command).join('\n'));
    return EXIT.ok;
  }
  const name = `${group.name} ${command.path.join(' ')}`;
  const synopsis = `platform ${group.name} ${[...command.path, command.synopsis].filter(Boolean).join(' ')} [--json]${command.exports ? ' [--export]' : ''}`;
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: args.slice(command.path.length),
      options: {
        ...command.options,
        json: { type: 'boolean' },
        ...(command.exports ? { export: { type: 'boolean' as const } } : {}),
      },
      allowPositionals: true,
      strict: true,
    }) as { values: Values; positionals: string[] };
    for (const option of command.required ?? []) {
      if (parsed.values[option] === undefined || parsed.values[option] === '')
        throw new UsageError(`--${option} is required`);
    }
    const { min, max } = command.positionals ?? { min: 0, max: 0 };
    if (parsed.positionals.length < min || parsed.positionals.length > max) {
      throw new UsageError(
        parsed.positionals.length < min ? 'missing argument' : `unexpected argument "${parsed.positionals[max]}"`,
      );
    }
  } catch (err) {
    return usage(io, `${name}: ${(err as Error).message}`, [synopsis]);
  }
  for (const option of command.paths ?? []) {
    const given = parsed.values[option];
    if (typeof given === 'string') parsed.values[option] = resolve(io.cwd ?? process.cwd(), given);
  }
  const json = parsed.values.json === true;
  const asExports = parsed.values.export === true;
  if (json && asExports) return usage(io, `${name}: --json and --export cannot be combined`, [synopsis]);
  try {
    const code = await command.run({
      values: parsed.values,
      positionals: parsed.positionals,
      io,
      json,
      result(data, lines) {
        if (asExports && command.exports) {
          const values = Object.entries(command.exports(data as never)).filter(
            (e): e is [string, string] => e[1] !== undefined,
          );
          for (const line of shellExports(Object.fromEntries(values))) io.out(line);
        } else if (json) io.out(JSON.stringify(data, null, 2));
        else for (const l of lines) io.out(l);
      },
    });
    return typeof code === 'number' ? code : EXIT.ok;
  } catch (raw) {
    const err = raw instanceof UsageError || raw instanceof CommandFailure ? raw : group.classify?.(raw);
    if (err instanceof UsageError) return usage(io, `${name}: ${err.message}`, [synopsis]);
    if (err instanceof CommandFailure) {
      io.err(`platform ${name}: ${err.message}`);
      return EXIT.failure;
    }
    throw raw;
  }
}

/**
 * What the `platform` command prints for an error no command handled, and its exit code: one line for what an operator
 * can fix (configuration, usage, a data folder in use, a start or database problem), the stack for anything else.
 */
export function reportFailure(err: unknown, io: CommandIO): number {
  if (err instanceof UsageError) {
    io.err(`platform: ${err.message}\nusage: platform <command> [arguments]   ("platform help" lists them)`);
    return EXIT.usage;
  }
  const known =
    err instanceof ConfigError ||
    err instanceof DirectoryInUseError ||
    err instanceof StartupError ||
    err instanceof ControlError
      ? err
      : databaseProblem(err);
  if (known) {
    io.err(`platform: ${known.message}`);
    return EXIT.failure;
  }
  io.err(`platform: ${(err as Error).stack ?? err}`);
  return EXIT.failure;
}

function usage(io: CommandIO, problem: string, lines: string[]): number {
  io.err([`platform: ${problem}`, ...lines.map((l, i) => `${i === 0 ? 'usage: ' : '       '}${l}`)].join('\n'));
  return EXIT.usage;
}

/** The value of a string option (parseArgs' values are typed loosely for a config built at run time). */
export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function strs(values: Values, name: string): string[] | undefined {
  const v = values[name];
  return Array.isArray(v) ? v.map(String) : undefined;
}

export function flag(values: Values, name: string): boolean {
  return values[name] === true;
}

/** One API key as `keys list` commands print it (tab-separated): never the key, only its prefix. */
export function apiKeyLine(key: {
  id: string;
  prefix: string;
  name: string | null;
  created_at: unknown;
  revoked_at: unknown;
}): string {
  return `${key.id}\t${key.prefix}…\t${key.name || '-'}\t${key.created_at}\t${key.revoked_at ? `revoked ${key.revoked_at}` : 'active'}`;
}
