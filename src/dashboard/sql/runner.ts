import { Counter, type Registry } from 'prom-client';
import { HttpError } from '../../kit/errors.ts';
import type { DataSourceRow } from '../datasources/store.ts';
import {
  DataSourceError,
  type DataSourcePool,
  type ProviderDescriptor,
  type SchemaRequest,
  type TableDescriptor,
} from './driver.ts';
import { executeQuery, type ExecuteResult } from './execute.ts';
import { httpErrorOf } from './http-error.ts';
import { mysqlDriver } from './mysql-driver.ts';
import { networkPolicy } from './network.ts';
import { PoolRegistry } from './pool-registry.ts';
import { postgresDriver } from './postgres-driver.ts';
import { SettingsCache, settingsOpener } from './settings.ts';
import { SharedResults } from './shared-results.ts';
import { SourceUrls, type SourceUrlOptions } from './urls.ts';

export interface SqlRunnerOptions extends SourceUrlOptions {
  deniedNetworks: readonly string[];
  allowedNetworks: readonly string[];
  /** The app's metrics: `dashboard_datasource_settings_opened_total` counts the settings opened. */
  metrics?: Registry | undefined;
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

/**
 * Data sources at run time: one pool per source, its settings opened once per version of the source, the query
 * pipeline (execute.ts) and the connection test. Failures come out as the HttpError to answer.
 */
export class SqlRunner {
  readonly urls: SourceUrls;
  /** Widgets' results: one trip for identical runs at once, kept for the widget's cache time (shared-results.ts). */
  readonly shared: SharedResults;
  private readonly registry: PoolRegistry;
  private readonly settings: SettingsCache;

  constructor(options: SqlRunnerOptions) {
    this.urls = new SourceUrls(options);
    this.shared = new SharedResults(options.metrics);
    const policy = networkPolicy(
      options.deniedNetworks,
      options.allowedNetworks.length ? options.allowedNetworks : undefined,
    );
    this.registry = new PoolRegistry({ postgres: postgresDriver(policy), mysql: mysqlDriver(policy) });
    const open = settingsOpener(this.urls);
    const opened = options.metrics
      ? new Counter({
          name: 'dashboard_datasource_settings_opened_total',
          help: 'Data source settings opened (URL decrypted or read from its variable): once per version of a source, not per query',
          registers: [options.metrics],
        })
      : undefined;
    this.settings = new SettingsCache((row) => {
      const settings = open(row);
      opened?.inc();
      return settings;
    });
  }

  providers(): ProviderDescriptor[] {
    return [this.registry.driver('postgres').descriptor, this.registry.driver('mysql').descriptor];
  }

  async run(row: DataSourceRow, options: RunOptions): Promise<ExecuteResult> {
    try {
      return await executeQuery(this.poolOf(row), {
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
    try {
      return await this.poolOf(row).schema(request);
    } catch (err) {
      throw httpErrorOf(err);
    }
  }

  /** A fresh connection that is not cached: connect, SELECT 1, close. */
  async test(row: DataSourceRow): Promise<TestOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      await this.registry.driver(row.type).test(this.settings.of(row).settings);
      return { success: true, durationMs: elapsed() };
    } catch (err) {
      const message = err instanceof DataSourceError ? err.message : 'the connection test failed';
      return { success: false, error: message, durationMs: elapsed() };
    }
  }

  /** The source changed: its settings are opened again at the next run (its pool stays while they match). */
  changed(id: number): void {
    this.settings.drop(id);
  }

  /** The source's connection settings changed or it is gone: its pool closes too. */
  async forget(id: number): Promise<void> {
    this.settings.drop(id);
    await this.registry.close(id);
  }

  async close(): Promise<void> {
    this.settings.clear();
    this.shared.clear();
    await this.registry.closeAll();
  }

  private poolOf(row: DataSourceRow): DataSourcePool {
    if (!row.active)
      throw new HttpError(400, 'VALIDATION_ERROR', 'the data source is inactive; set active to true to use it');
    const { settings, fingerprint } = this.settings.of(row);
    return this.registry.pool(row.id, row.type, settings, fingerprint);
  }
}
