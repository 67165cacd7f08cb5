import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { lockDirectory, type DirectoryLock } from './dir-lock.ts';
import { copyFrom } from './pg-copy.ts';
import { EMBEDDED_START_PARAMS, seedCluster } from './pglite-cluster.ts';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** What a query can run on: the database itself or an open transaction. */
export interface Queryable {
  /**
   * `name` makes it a prepared statement on PostgreSQL, parsed and planned once per connection (a generic plan) instead of
   * at every call: for the few statements run thousands of times a second whose plan does not depend on the tables'
   * sizes, such as identity's batched `INSERT ... SELECT FROM unnest`. Not for lookups: a plan made while a table is
   * small is a sequential scan, kept until an ANALYZE of the table invalidates it. One name, one text.
   */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], name?: string): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * `COPY … FROM STDIN` fed with `data` (kit/pg-copy.ts); resolves with the rows copied. PostgreSQL only: undefined on
   * PGlite. On the database itself the COPY is a transaction of its own (an implicit one: PostgreSQL commits it before
   * it answers, so it has resolved only once the rows are committed), which saves the BEGIN's and the COMMIT's round
   * trips; in a transaction it is one statement of it.
   */
  copyFrom?: (sql: string, data: Buffer) => Promise<number>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** The Postgres schema that holds this service's tables; every connection's search_path starts with it. */
  readonly schema: string;
  /** Runs `fn` in one transaction on one connection: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Connections of the pool right now, and callers waiting for one (for /metrics). */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Open connections. */
  total: number;
  /** Open connections not in use. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /** Connections the server dropped or that failed since the database was opened. */
  lost: number;
}

export interface DatabaseOptions {
  /** A postgres:// URL; without it the data lives in embedded PGlite under `dataDir`. */
  url?: string | undefined;
  dataDir: string;
  schema: string;
  poolSize?: number;
  /** Longest a statement may run on PostgreSQL before the server cancels it (0: no limit). 60 s by default, so a
   * hung query cannot hold a request, or a shutdown, forever; migrations lift it for their own transaction. */
  statementTimeoutMs?: number;
  /** Name used in the lock message if another process holds the embedded data directory. */
  owner?: string;
  /**
   * The migrations the caller applies next: a new embedded folder then starts as a copy of the install's cluster with
   * them applied, when it has one (src/kit/pglite-cluster.ts), and the caller's `migrate` finds nothing to do.
   */
  migrations?: URL | undefined;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name ${options.schema}`);
  return options.url
    ? openPostgres(options.url, options.schema, options.poolSize ?? 10, options.statementTimeoutMs ?? 60_000)
    : openPGlite(options.dataDir, options.schema, options.owner, options.migrations);
}

// int8 (counts, sums) as numbers on both backends, like PGlite does by default.
pg.types.setTypeParser(20, (v) => Number(v));

async function openPostgres(url: string, schema: string, max: number, statementTimeoutMs: number): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Only named (prepared) statements use the plan cache, and the few there are take arrays whose sizes vary: a generic plan
    // made once serves them all, where PostgreSQL's default re-plans each call (~190 µs of its CPU per identity token batch).
    // See Queryable.query for which statements may be named.
    options: `-c search_path=${schema},public -c statement_timeout=${Math.max(0, Math.floor(statementTimeoutMs))} -c plan_cache_mode=force_generic_plan`,
    connectionTimeoutMillis: 5_000,
  });
  // A connection the server drops (pg_terminate_backend, a restart, a failover) emits 'error' on its
  // client, and an 'error' event without a listener ends the process. The pool listens while a client is
  // idle, and a pooled query while it runs, but not in between (a client checked out for a transaction,
  // or the instant it is handed over): every client gets a listener of its own for its whole life, from
  // the moment it connects. The statement that meets the dead connection fails with an error that
  // isDatabaseUnavailable recognises, and the pool replaces the client.
  let lost = 0;
  const failed = new WeakSet<pg.Client>();
  // The pool re-emits an idle client's error on itself, after it has dropped the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {
      // A dying connection may report twice (the server's FATAL message, then the closed socket).
      if (failed.has(client)) return;
      failed.add(client);
      lost++;
    });
  });
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (err) {
    // Two instances creating the schema at once: the loser sees a duplicate, which is what it wanted anyway.
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') {
      await pool.end();
      throw err;
    }
  }
  const run = async <R>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params?: readonly unknown[],
    name?: string,
  ): Promise<QueryResult<R>> => {
    const r = name
      ? await client.query({ name, text: sql, values: params as unknown[] | undefined })
      : await client.query(sql, params as unknown[] | undefined);
    return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
  };
  return {
    kind: 'postgres',
    schema,
    query: (sql, params, name) => run(pool, sql, params, name),
    async transaction(fn) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: (sql, params, name) => run(client, sql, params, name),
          exec: async (sql) => void (await client.query(sql)),
          copyFrom: (sql, data) => copyFrom(client, sql, data),
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        // A client whose connection failed is discarded rather than handed to the next caller.
        client.release(broken);
      }
    },
    async copyFrom(sql, data) {
      const client = await pool.connect();
      let failure: unknown;
      try {
        return await copyFrom(client, sql, data);
      } catch (err) {
        failure = err;
        throw err;
      } finally {
        // After a refused COPY the connection is ready again (the implicit transaction ended with the error); one that
        // failed is discarded rather than handed to the next caller.
        client.release(failure !== undefined && isDatabaseUnavailable(failure));
      }
    },
    exec: async (sql) => void (await pool.query(sql)),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, lost }),
    close: () => pool.end(),
  };
}

async function openPGlite(dataDir: string, schema: string, owner?: string, migrations?: URL): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const lock: DirectoryLock = lockDirectory(dataDir, owner ?? schema);
  let db: PGlite;
  try {
    await seedCluster(dataDir, migrations && { schema, migrations });
    db = await PGlite.create({ dataDir, startParams: [...EMBEDDED_START_PARAMS] });
    await db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}, public;`);
  } catch (err) {
    lock.release();
    throw err;
  }
  const wrap = <R>(r: { rows: unknown[]; affectedRows?: number }): QueryResult<R> => ({
    rows: r.rows as R[],
    rowCount: r.rows.length || r.affectedRows || 0,
  });
  return {
    kind: 'pglite',
    schema,
    query: async (sql, params) => wrap(await db.query(sql, params as unknown[] | undefined)),
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: async (sql, params) => wrap(await tx.query(sql, params as unknown[] | undefined)),
          exec: async (sql) => void (await tx.exec(sql)),
        }),
      ),
    exec: async (sql) => void (await db.exec(sql)),
    // One embedded connection, always open.
    poolStats: () => ({ total: 1, idle: 1, waiting: 0, lost: 0 }),
    async close() {
      try {
        await db.close();
      } finally {
        lock.release();
      }
    },
  };
}

const UNAVAILABLE_CLASSES = new Set([
  '08', // connection exception
  '53', // insufficient resources (too many connections, out of memory, disk full)
  '57', // operator intervention (admin shutdown, crash shutdown, cannot connect now)
  '58', // system error (I/O)
  '3D', // invalid catalog name: the database itself is gone
  '28', // invalid authorization: the server refuses the connection
]);
// pg's and pg-pool's own errors for a dead or closed client carry no code, only these messages.
const UNAVAILABLE_MESSAGE =
  /^Connection terminated|is not queryable|timeout exceeded when trying to connect|after calling end on the pool|^PGlite is clos(ed|ing)$/;

/**
 * Whether an error means the database could not serve the statement at all (unreachable, dropped the
 * connection, shutting down, out of connections), as opposed to a fault in the statement itself: the
 * first is answered 503 with Retry-After, the second is a bug or a bad input.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  // A FATAL error ends the session: the server refused or dropped the connection.
  const severity = (err as { severity?: unknown }).severity;
  if (severity === 'FATAL' || severity === 'PANIC') return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // No SQLSTATE class begins with E, so an E-code is a system error (ECONNREFUSED, EPIPE, ...).
    if (code.startsWith('E')) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  }
  return err instanceof Error && UNAVAILABLE_MESSAGE.test(err.message);
}
