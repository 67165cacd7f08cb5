import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { lockDirectory, type DirectoryLock } from './dir-lock.ts';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** What a query can run on: the database itself or an open transaction. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** The Postgres schema that holds this service's tables; every connection's search_path starts with it. */
  readonly schema: string;
  /** Runs `fn` in one transaction on one connection: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
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
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name ${options.schema}`);
  return options.url
    ? openPostgres(options.url, options.schema, options.poolSize ?? 10, options.statementTimeoutMs ?? 60_000)
    : openPGlite(options.dataDir, options.schema, options.owner);
}

// int8 (counts, sums) as numbers on both backends, like PGlite does by default.
pg.types.setTypeParser(20, (v) => Number(v));

async function openPostgres(url: string, schema: string, max: number, statementTimeoutMs: number): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: `-c search_path=${schema},public -c statement_timeout=${Math.max(0, Math.floor(statementTimeoutMs))}`,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that loses its server emits here; without a listener the process would crash.
  pool.on('error', () => {});
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
  const run = async <R>(client: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    const r = await client.query(sql, params as unknown[] | undefined);
    return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
  };
  return {
    kind: 'postgres',
    schema,
    query: (sql, params) => run(pool, sql, params),
    async transaction(fn) {
      const client = await pool.connect();
      // A connection that dies between two statements of the transaction emits 'error' on the client,
      // which would crash the process without a listener; the next statement then fails and rolls back.
      const ignore = () => {};
      client.on('error', ignore);
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: (sql, params) => run(client, sql, params),
          exec: async (sql) => void (await client.query(sql)),
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.off('error', ignore);
        // A client whose connection failed is discarded rather than handed to the next caller.
        client.release(broken);
      }
    },
    exec: async (sql) => void (await pool.query(sql)),
    close: () => pool.end(),
  };
}

async function openPGlite(dataDir: string, schema: string, owner?: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const lock: DirectoryLock = lockDirectory(dataDir, owner ?? schema);
  let db: PGlite;
  try {
    db = await PGlite.create({ dataDir });
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
    async close() {
      try {
        await db.close();
      } finally {
        lock.release();
      }
    },
  };
}
