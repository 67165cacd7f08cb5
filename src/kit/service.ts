import type { App } from './app.ts';
import type { Spec } from './config.ts';
import type { Database } from './db.ts';
import type { LogFormat } from './logger.ts';
import { migrate } from './migrations.ts';
import { embeddedFolder, type StorageConfig } from './storage.ts';

export interface CommandIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** The folder the command was typed in, when it runs in another process (the control socket): paths resolve there. */
  cwd?: string;
}

/** What the `platform` command reads from every service's configuration (src/kit/service-config.ts declares it). */
export interface CommonConfig extends StorageConfig {
  logFormat: LogFormat;
  commandWait: number;
}

/** How a service plugs into the `platform` command: one of these per service, listed in src/services.ts. */
export interface ServiceDefinition<C extends CommonConfig> {
  name: string;
  description: string;
  defaultPort: number;
  /** The variables the service reads, so the docs test can check each is documented. */
  spec: Spec;
  /** Reads and validates the service's variables; throws ConfigError naming the first bad one. */
  loadConfig(env: NodeJS.ProcessEnv): C;
  address(config: C): { host: string; port: number };
  /** Opens storage, applies migrations and returns the app, not yet listening; `app.close()` releases everything. */
  buildApp(config: C): Promise<App>;
  /** Opens the service's database (its own schema), for `platform migrate` and the service's own commands. */
  openDatabase(config: C): Promise<Database>;
  /** The folder of the service's ordered `.sql` migrations. */
  migrations: URL;
  /** `platform <service> ...`: returns the exit code. */
  command?(args: string[], config: C, io: CommandIO): Promise<number>;
  /** One line per subcommand for `platform help` (a promise: the service's command code is loaded to list them). */
  usage?: () => Promise<string[]>;
}

export interface Service {
  name: string;
  description: string;
  defaultPort: number;
  usage(): Promise<string[]>;
  variables: string[];
  /** The declarations of those variables (parser, default, doc), for `.env.example` (src/platform/env-example.ts). */
  spec: Spec;
  /** The folder of the service's ordered `.sql` migrations (the install migrates a cluster with them: scripts/build.ts). */
  migrations: URL;
  load(env: NodeJS.ProcessEnv): LoadedService;
}

export interface LoadedService {
  address: { host: string; port: number };
  /**
   * The validated configuration, the object `buildApp` reads: src/platform/links.ts may add a service's `links` to it
   * before the build when `platform start` runs services that work together. Typed by the service that owns it.
   */
  config: unknown;
  /** The service's embedded data folder (`<DATA_DIR>/<service>`, absolute); undefined on PostgreSQL. */
  dataFolder: string | undefined;
  logFormat: LogFormat;
  /** PLATFORM_COMMAND_WAIT, in milliseconds. */
  commandWaitMs: number;
  buildApp(): Promise<App>;
  migrate(): Promise<string[]>;
  command: ((args: string[], io: CommandIO) => Promise<number>) | undefined;
}

/** Binds a definition to its config type once, so the registry can list services of different configs. */
export function defineService<C extends CommonConfig>(definition: ServiceDefinition<C>): Service {
  return {
    name: definition.name,
    description: definition.description,
    defaultPort: definition.defaultPort,
    usage: definition.usage ?? (async () => []),
    variables: Object.values(definition.spec).map((v) => v.name),
    spec: definition.spec,
    migrations: definition.migrations,
    load(env) {
      const config = definition.loadConfig(env);
      const command = definition.command;
      return {
        address: definition.address(config),
        config,
        dataFolder: embeddedFolder(definition.name, config),
        logFormat: config.logFormat,
        commandWaitMs: config.commandWait * 1000,
        buildApp: () => definition.buildApp(config),
        async migrate() {
          const db = await definition.openDatabase(config);
          try {
            return (await migrate(db, definition.migrations)).applied;
          } finally {
            await db.close();
          }
        },
        command: command ? (args, io) => command(args, config, io) : undefined,
      };
    },
  };
}
