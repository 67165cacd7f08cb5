import { HttpError } from '../../kit/errors.ts';
import { openSealedString, seal } from '../../kit/crypto.ts';
import { connectionUrlProblem } from './connection-url.ts';
import {
  DataSourceError,
  type ConnectionSettings,
  type DataSourceType,
  type ProviderDescriptor,
  type SchemaRequest,
  type TableDescriptor,
} from './driver.ts';
import { executeQuery, type ExecuteResult } from './execute.ts';
import { mysqlDriver } from './mysql-driver.ts';
import { networkPolicy } from './network.ts';
import { ParameterError } from './parameters.ts';
import { PoolRegistry } from './pool-registry.ts';
import { postgresDriver } from './postgres-driver.ts';
import { StatementError } from './statement.ts';
import type { DataSourceRow } from './store.ts';

export interface DataSourceServiceOptions {
  secretKey: Buffer;
  envPrefix: string;
  deniedNetworks: readonly string[];
  allowedNetworks: readonly string[];
  /** Where `connectionUrlEnv` names are looked up (process.env in the service). */
  env?: NodeJS.ProcessEnv;
}

export interface RunOptions {
  query: string;
  parameters: Readonly<Record<string, unknown>>;
  maxRows: number;
  signal?: AbortSignal | undefined;
}

export interface TestOutcome {
  success: boolean;
  durationMs: number;
  error?: string;
}

const urlContext = (id: number) => `dashboard.datasource-url:${id}`;

/** The answer for a failure of the data source itself; the messages are already free of the URL and its password. */
export function httpErrorOf(err: unknown): unknown {
  if (err instanceof StatementError || err instanceof ParameterError)
    return new HttpError(400, 'VALIDATION_ERROR', err.message);
  if (!(err instanceof DataSourceError)) return err;
  switch (err.kind) {
    case 'query':
      return new HttpError(400, 'VALIDATION_ERROR', `the database refused the query: ${err.message}`);
    case 'timeout':
    case 'cancelled':
      return new HttpError(
        408,
        'REQUEST_TIMEOUT',
        /data source's timeout|client went away/.test(err.message)
          ? err.message
          : `the query ran longer than the data source's timeout and was cancelled (${err.message})`,
      );
    case 'network':
      return new HttpError(400, 'VALIDATION_ERROR', err.message);
    case 'connect':
      return new HttpError(
        503,
        'UNAVAILABLE',
        `could not reach the data source: ${err.message.replace(/^could not connect: /, '')}`,
      );
  }
}

/**
 * Data sources at run time: their connection URLs opened from the sealed column or the named environment variable,
 * one pool per source, the query pipeline and the connection test.
 */
export class DataSourceService {
  readonly registry: PoolRegistry;
  private readonly options: DataSourceServiceOptions;

  constructor(options: DataSourceServiceOptions) {
    this.options = options;
    const policy = networkPolicy(
      options.deniedNetworks,
      options.allowedNetworks.length ? options.allowedNetworks : undefined,
    );
    this.registry = new PoolRegistry({ postgres: postgresDriver(policy), mysql: mysqlDriver(policy) });
  }

  providers(): ProviderDescriptor[] {
    return [this.registry.driver('postgres').descriptor, this.registry.driver('mysql').descriptor];
  }

  get envPrefix(): string {
    return this.options.envPrefix;
  }

  sealUrl(id: number, url: string): string {
    return seal(this.options.secretKey, url, urlContext(id));
  }

  /** Why `name` cannot be a data source's connectionUrlEnv, or undefined. Never says anything about the value. */
  envNameProblem(name: string, type: DataSourceType): string | undefined {
    const prefix = this.options.envPrefix;
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name))
      return 'must be an environment variable name (upper-case letters, digits, underscores)';
    if (!name.startsWith(prefix) || name.length === prefix.length)
      return `must name an environment variable starting with ${prefix}`;
    const value = (this.options.env ?? process.env)[name];
    if (value === undefined || value === '') return `environment variable ${name} is not set on this instance`;
    if (connectionUrlProblem(type, value))
      return `environment variable ${name} does not hold a connection URL for a ${type} data source`;
    return undefined;
  }

  /** The stored URL in clear (for checks when the type changes); undefined for a source that names an environment variable. */
  openStoredUrl(row: DataSourceRow): string | undefined {
    return row.connection_url_sealed
      ? openSealedString(this.options.secretKey, row.connection_url_sealed, urlContext(row.id))
      : undefined;
  }

  settingsOf(row: DataSourceRow): ConnectionSettings {
    let url: string;
    if (row.connection_url_sealed)
      url = openSealedString(this.options.secretKey, row.connection_url_sealed, urlContext(row.id));
    else {
      const name = row.connection_url_env ?? '';
      const problem = this.envNameProblem(name, row.type);
      if (problem) throw new DataSourceError('connect', problem);
      url = (this.options.env ?? process.env)[name]!;
    }
    return {
      url,
      sslEnabled: row.ssl_enabled,
      maxConnections: row.max_connections,
      queryTimeoutSeconds: row.query_timeout_seconds,
      readOnly: row.read_only,
      applicationName: `platform-dashboard ds:${row.id}`,
    };
  }

  private requireActive(row: DataSourceRow): void {
    if (!row.active)
      throw new HttpError(400, 'VALIDATION_ERROR', 'the data source is inactive; set active to true to use it');
  }

  async run(row: DataSourceRow, options: RunOptions): Promise<ExecuteResult> {
    this.requireActive(row);
    try {
      const pool = this.registry.pool(row.id, row.type, this.settingsOf(row));
      return await executeQuery(pool, {
        type: row.type,
        readOnly: row.read_only,
        query: options.query,
        parameters: options.parameters,
        maxRows: options.maxRows,
        signal: options.signal,
      });
    } catch (err) {
      throw httpErrorOf(err);
    }
  }

  async schema(row: DataSourceRow, request: SchemaRequest): Promise<TableDescriptor[]> {
    this.requireActive(row);
    try {
      return await this.registry.pool(row.id, row.type, this.settingsOf(row)).schema(request);
    } catch (err) {
      throw httpErrorOf(err);
    }
  }

  /** A fresh connection that is not cached: connect, SELECT 1, close. */
  async test(row: DataSourceRow): Promise<TestOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      await this.registry.driver(row.type).test(this.settingsOf(row));
      return { success: true, durationMs: elapsed() };
    } catch (err) {
      const message = err instanceof DataSourceError ? err.message : 'the connection test failed';
      return { success: false, error: message, durationMs: elapsed() };
    }
  }

  async forget(id: number): Promise<void> {
    await this.registry.close(id);
  }

  async close(): Promise<void> {
    await this.registry.closeAll();
  }
}
