import pg from 'pg';
import { parseConnectionUrl, scrubSecrets } from './connection-url.ts';
import { ColumnCache, columnsOf, describeStep, modifiers } from './postgres-columns.ts';
import {
  DataSourceError,
  type ColumnDescriptor,
  type ConnectionSettings,
  type DataSourcePool,
  type Driver,
  type RunRequest,
  type RunResult,
  type SchemaRequest,
  type TableDescriptor,
} from './driver.ts';
import { resolveAllowed, type NetworkPolicy } from './network.ts';
import { exchange, type Step, type StepResult } from './postgres-exchange.ts';
import { jsonSafeTypes } from './postgres-values.ts';
import { likePattern } from './schema-filter.ts';
import { guardRun } from './run-guard.ts';

const CONNECT_TIMEOUT_MS = 10_000;

/** The session every data source connection starts with; the clean-up after each query returns to exactly this. */
function sessionOptions(settings: ConnectionSettings): string {
  return [
    `-c statement_timeout=${settings.queryTimeoutSeconds * 1000}`,
    // A second lock besides each query's BEGIN READ ONLY: any transaction on the connection is read-only unless it
    // asks otherwise, and RESET ALL after each query undoes a query that changed the default.
    ...(settings.readOnly ? ['-c default_transaction_read_only=on'] : []),
    '-c TimeZone=UTC',
    '-c DateStyle=ISO',
    '-c IntervalStyle=iso_8601',
    // A connection left idle inside a transaction (a crash between our statements) is ended by the server.
    `-c idle_in_transaction_session_timeout=${Math.max(60, settings.queryTimeoutSeconds * 2) * 1000}`,
  ].join(' ');
}

async function clientConfig(settings: ConnectionSettings, policy: NetworkPolicy): Promise<pg.ClientConfig> {
  const u = parseConnectionUrl(settings.url);
  const address = await resolveAllowed(policy, u.host);
  const sslmode = u.params.get('sslmode');
  return {
    host: address,
    port: u.port ?? 5432,
    user: u.user || undefined,
    password: u.password || undefined,
    database: u.database || undefined,
    // sslmode=require (libpq's meaning) encrypts without checking the certificate; otherwise it is verified
    // against the host name in the URL, not the address connected to.
    ssl: settings.sslEnabled
      ? { rejectUnauthorized: sslmode !== 'require' && sslmode !== 'no-verify', servername: u.host }
      : false,
    options: sessionOptions(settings),
    application_name: settings.applicationName ?? 'platform-dashboard',
    connectionTimeoutMillis: Math.min(CONNECT_TIMEOUT_MS, settings.queryTimeoutSeconds * 1000),
  };
}

function classify(err: unknown, url: string): DataSourceError {
  if (err instanceof DataSourceError) return err;
  const e = err as { code?: string; message?: string };
  const message = scrubSecrets(String(e.message ?? err), url);
  const code = e.code ?? '';
  if (code === '57014')
    return new DataSourceError(/statement timeout/.test(message) ? 'timeout' : 'cancelled', message);
  // Connection failures (08), authentication (28), an unknown database (3D000), socket errors, pool wait timeouts.
  if (
    /^(08|28)/.test(code) ||
    code === '3D000' ||
    /^E[A-Z]+$/.test(code) ||
    /timeout exceeded when trying to connect|Connection terminated/i.test(message)
  ) {
    return new DataSourceError('connect', `could not connect: ${message}`);
  }
  return new DataSourceError('query', message);
}

/**
 * What DISCARD ALL does, statement by statement (its documented equivalent): DISCARD ALL itself refuses to run in
 * the same exchange as other statements, these do not, so the cleanup shares the round trip of the ROLLBACK and the
 * column lookup. The lookup comes after the settings are reset (no search_path or role the query set can change
 * what it reads) and before DISCARD TEMP (a temporary table's columns are still there to describe).
 */
const RESET_SESSION = ['CLOSE ALL', 'SET SESSION AUTHORIZATION DEFAULT', 'RESET ALL'];
const RESET_REST = [
  'DEALLOCATE ALL',
  'UNLISTEN *',
  'SELECT pg_advisory_unlock_all()',
  'DISCARD PLANS',
  'DISCARD TEMP',
  'DISCARD SEQUENCES',
];

/**
 * The second and last round trip of a query: ends the transaction the query left (a read-only source's, always
 * rolled back; any other a query somehow opened), returns the session to how it started, and looks the result's
 * columns up. Returns the lookup's rows, or throws when any of it failed (the caller then falls back to `clean`).
 */
async function finishUp(client: pg.PoolClient, fields: pg.FieldDef[] | undefined): Promise<StepResult | undefined> {
  let describedAt = -1;
  const done = await exchange(client, () => {
    // Read when the exchange is sent, that is once the query's answer (and its transaction status) is in.
    const steps: Step[] = client.getTransactionStatus() === 'I' ? [] : [{ text: 'ROLLBACK' }];
    for (const text of RESET_SESSION) steps.push({ text });
    if (fields && fields.length > 0) {
      describedAt = steps.length;
      steps.push(describeStep(fields));
    }
    for (const text of RESET_REST) steps.push({ text });
    return steps;
  });
  if (done.error) throw done.error;
  return describedAt < 0 ? undefined : done.steps[describedAt];
}

/** Returns a connection to the session it started with in round trips of its own: the fallback when `finishUp` failed. */
async function clean(client: pg.PoolClient): Promise<void> {
  try {
    await client.query('DISCARD ALL');
  } catch (err) {
    if ((err as { code?: string }).code !== '25001') throw err;
    await client.query('ROLLBACK');
    await client.query('DISCARD ALL');
  }
}

class PostgresPool implements DataSourcePool {
  private readonly settings: ConnectionSettings;
  private readonly policy: NetworkPolicy;
  private pool: Promise<{ pool: pg.Pool; config: pg.ClientConfig }> | undefined;
  private readonly columns = new ColumnCache();

  constructor(settings: ConnectionSettings, policy: NetworkPolicy) {
    this.settings = settings;
    this.policy = policy;
  }

  private async get(): Promise<{ pool: pg.Pool; config: pg.ClientConfig }> {
    if (!this.pool) {
      this.pool = clientConfig(this.settings, this.policy).then((config) => {
        const pool = new pg.Pool({ ...config, max: this.settings.maxConnections, idleTimeoutMillis: 30_000 });
        // An idle connection that loses its server emits here; without a listener the process would crash.
        pool.on('error', () => {});
        return { pool, config };
      });
      // A failed resolution is not cached: the next query tries again.
      this.pool.catch(() => {
        this.pool = undefined;
      });
    }
    return this.pool;
  }

  async run(request: RunRequest): Promise<RunResult> {
    const url = this.settings.url;
    let pool: pg.Pool;
    let config: pg.ClientConfig;
    let client: pg.PoolClient;
    try {
      ({ pool, config } = await this.get());
      client = await pool.connect();
    } catch (err) {
      throw classify(err, url);
    }
    const ignore = () => {};
    client.on('error', ignore);
    let reusable = false;
    // Whether the statements on this connection have finished (also after a cancel); if not, it cannot be cleaned.
    let finished = false;
    // Whether the clean-up was left to run after the answer, which then releases the connection itself.
    let cleanedAfter = false;
    try {
      const query = await guardRun({
        timeoutMs: this.settings.queryTimeoutSeconds * 1000,
        signal: request.signal,
        cancel: () => cancelBackend(config, (client as unknown as { processID: number | null }).processID),
        run: async () => {
          try {
            // One round trip: the read-only transaction is opened in the same exchange as the query, so the query
            // never runs if BEGIN READ ONLY did not (the server skips everything after an error up to the Sync).
            const steps: Step[] = this.settings.readOnly ? [{ text: 'BEGIN READ ONLY' }] : [];
            steps.push({ text: request.sql, values: request.values, maxRows: request.maxRows + 1 });
            const answer = await exchange(client, () => steps, jsonSafeTypes);
            if (answer.error) throw answer.error;
            return answer.steps[steps.length - 1]!;
          } finally {
            finished = true;
          }
        },
      });
      // Columns already known: the answer need not wait for the clean-up's round trip, which runs after it and
      // returns the connection to the pool only once the session is as it started (or drops it).
      let columns = this.columns.known(query.fields);
      if (columns) {
        cleanedAfter = true;
        void this.cleanUpAfterAnswer(client, query.fields, ignore);
      } else {
        const described = await finishUp(client, query.fields);
        this.columns.learn(query.fields, described);
        columns = columnsOf(query.fields, described);
        reusable = true;
      }
      const rows = query.rows;
      const truncated = rows.length > request.maxRows;
      if (truncated) rows.length = request.maxRows;
      return { columns, rows, rowCount: rows.length, truncated };
    } catch (err) {
      const e = classify(err, url);
      // A connection whose statement ended (with an SQL error, or cancelled by the timeout or the client leaving) is
      // reused only once it is verifiably clean, which also means the server has finished with it before the answer
      // goes out; one still busy after the grace period is dropped.
      if (finished && !reusable)
        reusable = await finishUp(client, undefined)
          .catch(() => clean(client))
          .then(
            () => true,
            () => false,
          );
      throw e;
    } finally {
      if (!cleanedAfter) {
        client.off('error', ignore);
        client.release(!reusable);
      }
    }
  }

  /** The clean-up of a query already answered; its column lookup refreshes the cache. Never throws. */
  private async cleanUpAfterAnswer(client: pg.PoolClient, fields: pg.FieldDef[], ignore: () => void): Promise<void> {
    let reusable = false;
    try {
      this.columns.learn(fields, await finishUp(client, fields));
      reusable = true;
    } catch {
      reusable = await clean(client).then(
        () => true,
        () => false,
      );
    } finally {
      client.off('error', ignore);
      client.release(!reusable);
    }
  }

  async schema(request: SchemaRequest): Promise<TableDescriptor[]> {
    const url = this.settings.url;
    try {
      const { pool } = await this.get();
      const schema = request.schema ?? 'public';
      const pattern = likePattern(request.filter);
      const tables = await pool.query<{ name: string; kind: string }>(
        `SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'f', 'v', 'm') AND ($2::text IS NULL OR c.relname ILIKE $2)
          ORDER BY c.relname`,
        [schema, pattern],
      );
      const out: TableDescriptor[] = tables.rows.map((t) => ({
        schema,
        name: t.name,
        type: t.kind === 'v' || t.kind === 'm' ? 'view' : 'table',
      }));
      if (!request.columns || out.length === 0) return out;
      const cols = await pool.query<{
        table: string;
        name: string;
        type: string;
        typ: number;
        typmod: number;
        not_null: boolean;
      }>(
        `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, NULL) AS type, a.atttypid::int AS typ, a.atttypmod AS typmod, a.attnotnull AS not_null
           FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY c.relname, a.attnum`,
        [schema, out.map((t) => t.name)],
      );
      const byTable = new Map<string, ColumnDescriptor[]>(out.map((t) => [t.name, []]));
      for (const c of cols.rows)
        byTable
          .get(c.table)
          ?.push({ name: c.name, type: c.type, nullable: !c.not_null, ...modifiers(c.typ, c.typmod) });
      return out.map((t) => ({ ...t, columns: byTable.get(t.name) ?? [] }));
    } catch (err) {
      throw classify(err, url);
    }
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    if (!p) return;
    const { pool } = await p.catch(() => ({ pool: undefined }));
    await pool?.end();
  }
}

/** Cancels the running statement of backend `pid` from a connection of its own (the pool's may all be busy). */
async function cancelBackend(config: pg.ClientConfig, pid: number | null | undefined): Promise<void> {
  if (!pid) return;
  const c = new pg.Client({ ...config, connectionTimeoutMillis: 5_000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT pg_cancel_backend($1)', [pid]);
  } finally {
    await c.end().catch(() => {});
  }
}

export function postgresDriver(policy: NetworkPolicy): Driver {
  return {
    descriptor: {
      name: 'postgres',
      capabilities: {
        supportsTransactions: true,
        supportsStreaming: true,
        supportsPreparedStmts: true,
        supportsNamedParams: true,
        parameterStyle: 'positional_dollar',
      },
    },
    open: (settings) => new PostgresPool(settings, policy),
    async test(settings) {
      const client = new pg.Client(await clientConfig(settings, policy));
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query('SELECT 1');
      } catch (err) {
        throw classify(err, settings.url);
      } finally {
        await client.end().catch(() => {});
      }
    },
  };
}
