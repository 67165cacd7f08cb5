import mysql from 'mysql2';
import { parseConnectionUrl, scrubSecrets } from './connection-url.ts';
import {
  DataSourceError,
  type ConnectionSettings,
  type DataSourcePool,
  type Driver,
  type RunRequest,
  type RunResult,
  type SchemaRequest,
  type TableDescriptor,
} from './driver.ts';
import { converterFor, describeField, type MysqlField } from './mysql-values.ts';
import { resolveAllowed, type NetworkPolicy } from './network.ts';
import { guardRun } from './run-guard.ts';
import { likePattern } from './schema-filter.ts';

const CONNECT_TIMEOUT_MS = 10_000;

type Conn = mysql.PoolConnection & { threadId: number | null; _handshakePacket?: { serverVersion?: string } };

async function connectionOptions(
  settings: ConnectionSettings,
  policy: NetworkPolicy,
): Promise<mysql.ConnectionOptions> {
  const u = parseConnectionUrl(settings.url);
  const address = await resolveAllowed(policy, u.host);
  const mode = (u.params.get('sslmode') ?? u.params.get('ssl-mode') ?? '').toLowerCase();
  const verify = mode !== 'require' && mode !== 'required' && mode !== 'no-verify';
  return {
    // mysql2 checks a certificate's host name only when it connects by name; with a verified certificate a DNS
    // answer changed after the check cannot lead elsewhere (the other host has no certificate for the name).
    host: settings.sslEnabled && verify ? u.host : address,
    port: u.port ?? 3306,
    user: u.user || undefined,
    password: u.password || undefined,
    database: u.database || undefined,
    ssl: settings.sslEnabled ? { rejectUnauthorized: verify, verifyIdentity: verify } : undefined,
    connectTimeout: Math.min(CONNECT_TIMEOUT_MS, settings.queryTimeoutSeconds * 1000),
    // BIGINT and DECIMAL keep their digits as strings; dates come as text and are turned into ISO 8601 here.
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    dateStrings: true,
    multipleStatements: false,
    // A hostile server must not be able to ask for local files (LOAD DATA LOCAL INFILE).
    flags: ['-LOCAL_FILES'],
    rowsAsArray: true,
  };
}

function classify(err: unknown, url: string): DataSourceError {
  if (err instanceof DataSourceError) return err;
  const e = err as { code?: string; errno?: number; message?: string; fatal?: boolean };
  const message = scrubSecrets(String(e.message ?? err), url);
  // 1969 ER_STATEMENT_TIMEOUT (MariaDB), 3024 ER_QUERY_TIMEOUT (MySQL); 1317 ER_QUERY_INTERRUPTED after KILL QUERY.
  if (e.errno === 1969 || e.errno === 3024) return new DataSourceError('timeout', message);
  if (e.errno === 1317) return new DataSourceError('cancelled', message);
  // Access denied (1044, 1045), unknown database (1049), host not allowed (1130), socket errors, handshake timeouts.
  if (
    e.errno === 1044 ||
    e.errno === 1045 ||
    e.errno === 1049 ||
    e.errno === 1130 ||
    /^E[A-Z]+$/.test(e.code ?? '') ||
    e.code === 'PROTOCOL_CONNECTION_LOST'
  ) {
    return new DataSourceError('connect', `could not connect: ${message}`);
  }
  return new DataSourceError('query', message);
}

const call = <T>(fn: (cb: (err: unknown, value?: T) => void) => void): Promise<T> =>
  new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));

function isMariaDb(conn: Conn): boolean {
  return /mariadb/i.test(conn._handshakePacket?.serverVersion ?? '');
}

/**
 * The session every connection starts with, and returns to after each query: UTC, the timeout, read-only if asked.
 * One statement, so one round trip: the read-only session is set through its variable (what SET SESSION TRANSACTION
 * READ ONLY sets), named `tx_read_only` by MariaDB and `transaction_read_only` by MySQL 5.7.20 and later.
 */
async function setUp(conn: Conn, settings: ConnectionSettings): Promise<void> {
  const mariaDb = isMariaDb(conn);
  // MariaDB's max_statement_time (seconds) covers every statement; MySQL's max_execution_time (ms) only SELECT,
  // which is why the service also cancels with KILL QUERY when its own timer passes.
  const assignments = [
    "time_zone = '+00:00'",
    mariaDb
      ? `max_statement_time = ${settings.queryTimeoutSeconds}`
      : `max_execution_time = ${settings.queryTimeoutSeconds * 1000}`,
  ];
  if (settings.readOnly) assignments.push(mariaDb ? 'tx_read_only = 1' : 'transaction_read_only = 1');
  await call((cb) => conn.query(`SET SESSION ${assignments.join(', ')}`, (err) => cb(err)));
}

/** COM_RESET_CONNECTION: rolls back, drops temporary tables, user variables, named locks and prepared statements. */
async function clean(conn: Conn, settings: ConnectionSettings): Promise<void> {
  await call((cb) => conn.reset((err: unknown) => cb(err)));
  await setUp(conn, settings);
}

interface Streamed {
  fields: MysqlField[];
  rows: unknown[][];
  truncated: boolean;
}

/** Executes a prepared statement and reads rows until the end or `limit + 1`; at the cap the connection is given up (the only way to stop the server sending). */
function stream(conn: Conn, sql: string, values: unknown[], limit: number): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    let fields: MysqlField[] = [];
    const rows: unknown[][] = [];
    let settled = false;
    const cmd = conn.execute({ sql, values, rowsAsArray: true });
    cmd.on('fields', (f: MysqlField[] | undefined) => {
      fields = f ?? [];
    });
    cmd.on('result', (row: unknown) => {
      if (settled || !Array.isArray(row)) return;
      rows.push(row);
      if (rows.length > limit) {
        settled = true;
        resolve({ fields, rows, truncated: true });
      }
    });
    cmd.on('error', (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(err);
    });
    cmd.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ fields, rows, truncated: false });
    });
  });
}

class MysqlPool implements DataSourcePool {
  private readonly settings: ConnectionSettings;
  private readonly policy: NetworkPolicy;
  private pool: Promise<{ pool: mysql.Pool; options: mysql.ConnectionOptions }> | undefined;
  private readonly ready = new WeakSet<object>();

  constructor(settings: ConnectionSettings, policy: NetworkPolicy) {
    this.settings = settings;
    this.policy = policy;
  }

  private async get(): Promise<{ pool: mysql.Pool; options: mysql.ConnectionOptions }> {
    if (!this.pool) {
      this.pool = connectionOptions(this.settings, this.policy).then((options) => {
        const pool = mysql.createPool({
          ...options,
          connectionLimit: this.settings.maxConnections,
          maxIdle: this.settings.maxConnections,
          idleTimeout: 30_000,
          waitForConnections: true,
          queueLimit: 0,
        });
        pool.on('error' as 'connection', () => {});
        return { pool, options };
      });
      this.pool.catch(() => {
        this.pool = undefined;
      });
    }
    return this.pool;
  }

  private async connection(): Promise<{ conn: Conn; options: mysql.ConnectionOptions }> {
    const { pool, options } = await this.get();
    const conn = (await call<mysql.PoolConnection>((cb) => pool.getConnection(cb))) as Conn;
    if (!this.ready.has(conn)) {
      try {
        await setUp(conn, this.settings);
      } catch (err) {
        conn.destroy();
        throw err;
      }
      this.ready.add(conn);
    }
    return { conn, options };
  }

  async run(request: RunRequest): Promise<RunResult> {
    const url = this.settings.url;
    let conn: Conn;
    let options: mysql.ConnectionOptions;
    try {
      ({ conn, options } = await this.connection());
    } catch (err) {
      throw classify(err, url);
    }
    let reusable = false;
    try {
      const threadId = conn.threadId;
      const result = await guardRun({
        timeoutMs: this.settings.queryTimeoutSeconds * 1000,
        signal: request.signal,
        cancel: () => killQuery(options, threadId),
        run: async () => {
          if (this.settings.readOnly) await call((cb) => conn.query('START TRANSACTION READ ONLY', (err) => cb(err)));
          // No ROLLBACK of its own: the COM_RESET_CONNECTION that follows every query rolls the transaction back.
          return stream(conn, request.sql, request.values, request.maxRows);
        },
      });
      if (!result.truncated) {
        await clean(conn, this.settings);
        reusable = true;
      } else {
        // Closing the connection alone stops the server only when its next write fails; KILL QUERY stops it now.
        killQuery(options, conn.threadId).catch(() => {});
      }
      const converters = result.fields.map(converterFor);
      const names = result.fields.map((f) => f.name);
      const n = Math.min(result.rows.length, request.maxRows);
      const rows: Record<string, unknown>[] = new Array(n);
      for (let r = 0; r < n; r++) {
        const src = result.rows[r]!;
        const row: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) {
          const v = src[i];
          const convert = converters[i];
          row[names[i]!] = v === null || convert === undefined ? v : convert(v);
        }
        rows[r] = row;
      }
      return { columns: result.fields.map(describeField), rows, rowCount: n, truncated: result.truncated };
    } catch (err) {
      const e = classify(err, url);
      if (e.kind === 'query')
        reusable = await clean(conn, this.settings).then(
          () => true,
          () => false,
        );
      throw e;
    } finally {
      // A connection stopped mid-result, timed out, cancelled or not verifiably clean is closed, never reused.
      if (reusable) conn.release();
      else conn.destroy();
    }
  }

  async schema(request: SchemaRequest): Promise<TableDescriptor[]> {
    const url = this.settings.url;
    try {
      const { pool } = await this.get();
      const exec = <R>(sql: string, values: unknown[]) =>
        call<R[]>((cb) => pool.execute({ sql, values, rowsAsArray: false }, (err, rows) => cb(err, rows as R[])));
      const [current] = await exec<{ db: string | null }>('SELECT DATABASE() AS db', []);
      const schema = request.schema ?? current?.db ?? undefined;
      if (!schema)
        throw new DataSourceError('query', 'schema: the connection URL names no database, so give one in schema');
      const tables = await exec<{ name: string; kind: string }>(
        `SELECT TABLE_NAME AS name, TABLE_TYPE AS kind FROM information_schema.TABLES
          WHERE TABLE_SCHEMA = ? AND (? IS NULL OR TABLE_NAME LIKE ?) ORDER BY TABLE_NAME`,
        [schema, likePattern(request.filter), likePattern(request.filter)],
      );
      // Sorted here by code point, as PostgreSQL's name type sorts, rather than by the server's collation.
      const out: TableDescriptor[] = tables
        .map((t): TableDescriptor => ({ schema, name: t.name, type: /VIEW/.test(t.kind) ? 'view' : 'table' }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (!request.columns || out.length === 0) return out;
      const cols = await exec<{
        tbl: string;
        name: string;
        type: string;
        nullable: string;
        len: number | string | null;
        prec: number | string | null;
        scale: number | string | null;
        dtp: number | string | null;
      }>(
        `SELECT TABLE_NAME AS tbl, COLUMN_NAME AS name, UPPER(DATA_TYPE) AS type, IS_NULLABLE AS nullable, CHARACTER_MAXIMUM_LENGTH AS len,
                NUMERIC_PRECISION AS prec, NUMERIC_SCALE AS scale, DATETIME_PRECISION AS dtp
           FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`,
        [schema],
      );
      const byTable = new Map(out.map((t) => [t.name, [] as NonNullable<TableDescriptor['columns']>]));
      const num = (v: number | string | null) => (v === null ? undefined : Number(v));
      for (const c of cols) {
        const list = byTable.get(c.tbl);
        if (!list) continue;
        const isDecimal = c.type === 'DECIMAL' || c.type === 'NUMERIC';
        const isText = /CHAR|BINARY/.test(c.type);
        list.push({
          name: c.name,
          type: c.type,
          nullable: c.nullable === 'YES',
          ...(isDecimal && num(c.prec) !== undefined ? { precision: num(c.prec)!, scale: num(c.scale) ?? 0 } : {}),
          ...(isText && num(c.len) !== undefined ? { length: num(c.len)! } : {}),
          ...(!isDecimal && num(c.dtp) !== undefined ? { precision: num(c.dtp)! } : {}),
        });
      }
      return out.map((t) => ({ ...t, columns: byTable.get(t.name) ?? [] }));
    } catch (err) {
      throw classify(err, url);
    }
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    if (!p) return;
    const got = await p.catch(() => undefined);
    if (got) await call((cb) => got.pool.end((err) => cb(err)));
  }
}

/** KILL QUERY from a connection of its own: the statement stops in the server, the connection it ran on stays. */
async function killQuery(options: mysql.ConnectionOptions, threadId: number | null): Promise<void> {
  if (!threadId) return;
  const c = mysql.createConnection({ ...options, connectTimeout: 5_000 });
  c.on('error', () => {});
  try {
    await call((cb) => c.query(`KILL QUERY ${Number(threadId)}`, (err) => cb(err)));
  } finally {
    c.destroy();
  }
}

export function mysqlDriver(policy: NetworkPolicy): Driver {
  return {
    descriptor: {
      name: 'mysql',
      capabilities: {
        supportsTransactions: true,
        supportsStreaming: true,
        supportsPreparedStmts: true,
        supportsNamedParams: true,
        parameterStyle: 'positional_question',
      },
    },
    open: (settings) => new MysqlPool(settings, policy),
    async test(settings) {
      const c = mysql.createConnection(await connectionOptions(settings, policy));
      c.on('error', () => {});
      try {
        await call((cb) => c.query('SELECT 1', (err) => cb(err)));
      } catch (err) {
        throw classify(err, settings.url);
      } finally {
        c.destroy();
      }
    },
  };
}
