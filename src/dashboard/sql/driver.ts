import type { Dialect } from './sql-lexer.ts';

export type DataSourceType = Dialect;

/** What a driver needs to reach a data source; a change to any of these closes the pool and opens a new one. */
export interface ConnectionSettings {
  /** The opened (never logged) connection URL. */
  url: string;
  sslEnabled: boolean;
  maxConnections: number;
  queryTimeoutSeconds: number;
  readOnly: boolean;
  /** How the connections name themselves to the server (PostgreSQL's application_name), so a DBA can tell sources apart. */
  applicationName?: string | undefined;
}

export interface ColumnDescriptor {
  name: string;
  type: string;
  nullable: boolean;
  precision?: number;
  scale?: number;
  length?: number;
}

export interface TableDescriptor {
  schema: string;
  name: string;
  type: 'table' | 'view';
  columns?: ColumnDescriptor[];
}

export interface RunRequest {
  /** SQL already bound to the driver's placeholders. */
  sql: string;
  values: unknown[];
  maxRows: number;
  /** Aborted when the client goes away: the query is then cancelled in the database. */
  signal?: AbortSignal | undefined;
}

export interface RunResult {
  columns: ColumnDescriptor[];
  rows: Record<string, unknown>[];
  rowCount: number;
  /** More rows existed than `maxRows`; reading stopped at the cap. */
  truncated: boolean;
}

export interface SchemaRequest {
  schema?: string | undefined;
  /** A name pattern: `*` and `%` match any run of characters, `?` and `_` one character; case-insensitive. */
  filter?: string | undefined;
  columns: boolean;
}

/** A pool of connections to one data source. */
export interface DataSourcePool {
  run(request: RunRequest): Promise<RunResult>;
  schema(request: SchemaRequest): Promise<TableDescriptor[]>;
  close(): Promise<void>;
}

export interface ProviderDescriptor {
  name: DataSourceType;
  capabilities: {
    supportsTransactions: boolean;
    supportsStreaming: boolean;
    supportsPreparedStmts: boolean;
    supportsNamedParams: boolean;
    parameterStyle: 'positional_dollar' | 'positional_question';
  };
}

export interface Driver {
  readonly descriptor: ProviderDescriptor;
  /** A pool whose connections are opened on first use. */
  open(settings: ConnectionSettings): DataSourcePool;
  /** Opens one fresh connection, runs a trivial query and closes it; throws a DataSourceError saying why. */
  test(settings: ConnectionSettings): Promise<void>;
}

/** What went wrong talking to a data source, already scrubbed of the connection URL and its password. */
export class DataSourceError extends Error {
  readonly kind: 'connect' | 'query' | 'timeout' | 'cancelled' | 'network';
  constructor(kind: DataSourceError['kind'], message: string) {
    super(message);
    this.name = 'DataSourceError';
    this.kind = kind;
  }
}
