import { createBatcher, type Batcher } from '../../kit/batcher.ts';
import { isDatabaseUnavailable, type Database } from '../../kit/db.ts';

/** One oauth_tokens row as the adapter writes it, in TOKEN_COLUMNS order. */
export type TokenValues = [
  kind: string,
  accessTokenSignature: string | null,
  refreshTokenSignature: string | null,
  grantHash: string | null,
  scopes: string,
  audience: string,
  sessionId: string | null,
  accessExpiresAt: Date | null,
  refreshExpiresAt: Date | null,
  clientIp: string | null,
  userAgent: string | null,
  subject: string | null,
  principalId: string | null,
  clientId: string,
  appId: string | null,
  payload: string,
  dpopJkt: string | null,
];

export type ConflictColumn = 'access_token_signature' | 'refresh_token_signature';

const COLUMN_TYPES = [
  'text',
  'text',
  'text',
  'text',
  'jsonb',
  'jsonb',
  'text',
  'timestamptz',
  'timestamptz',
  'text',
  'text',
  'text',
  'uuid',
  'text',
  'uuid',
  'text',
  'text',
];

const INSERT_INTO = `INSERT INTO oauth_tokens (kind, access_token_signature, refresh_token_signature, family_id, grant_hash, scopes, audience,
  session_id, access_expires_at, refresh_expires_at, client_ip, user_agent, subject, principal_id, client_id, app_id, payload, dpop_jkt)`;

function onConflict(column: ConflictColumn): string {
  return `ON CONFLICT (${column}) DO UPDATE SET payload = EXCLUDED.payload, access_expires_at = EXCLUDED.access_expires_at,
    refresh_expires_at = EXCLUDED.refresh_expires_at, scopes = EXCLUDED.scopes`;
}

/**
 * How an access token's row is committed: `asynchronous` (PostgreSQL's synchronous_commit off for that statement alone)
 * or `synchronous` (IDENTITY_ACCESS_TOKEN_COMMIT; docs/decisions.md). Either way the row is visible to every session as
 * soon as the statement returns; only its durability against a PostgreSQL crash waits for the WAL writer.
 */
export type AccessTokenCommit = 'asynchronous' | 'synchronous';

// set_config(..., true) lasts until the end of the transaction, which for a lone statement is its own implicit one, so it
// covers this commit and nothing after it. A one-row subquery in FROM, so it runs once per statement.
const ASYNCHRONOUS_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS commit_mode`;

function singleRow(column: ConflictColumn, commit: AccessTokenCommit): string {
  if (commit === 'synchronous')
    return `${INSERT_INTO}
    VALUES ($1, $2, $3, (SELECT id FROM oauth_grants WHERE grant_hash = $4), $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
    ${onConflict(column)}`;
  const v = COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}`);
  return `${INSERT_INTO}
    SELECT ${v[0]}, ${v[1]}, ${v[2]}, (SELECT id FROM oauth_grants WHERE grant_hash = ${v[3]}), ${v.slice(3).join(', ')}
    FROM ${ASYNCHRONOUS_COMMIT}
    ${onConflict(column)}`;
}

function manyRows(column: ConflictColumn, commit: AccessTokenCommit): string {
  const arrays = COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
  return `${INSERT_INTO}
    SELECT v.c1, v.c2, v.c3, (SELECT g.id FROM oauth_grants g WHERE g.grant_hash = v.c4), v.c4, v.c5, v.c6, v.c7, v.c8, v.c9, v.c10,
      v.c11, v.c12, v.c13, v.c14, v.c15, v.c16, v.c17
    FROM unnest(${arrays}) AS v(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17)${commit === 'asynchronous' ? `, ${ASYNCHRONOUS_COMMIT}` : ''}
    ${onConflict(column)}`;
}

interface Statement {
  sql: string;
  name: string;
}

function statements(column: ConflictColumn, commit: AccessTokenCommit): { one: Statement; many: Statement } {
  const suffix = commit === 'asynchronous' ? '_async' : '';
  return {
    one: { sql: singleRow(column, commit), name: `identity_token_insert_one_${column}${suffix}` },
    many: { sql: manyRows(column, commit), name: `identity_token_insert_many_${column}${suffix}` },
  };
}

interface Row {
  column: ConflictColumn;
  values: TokenValues;
}

/**
 * Writes issued tokens, many per statement (the kit's micro-batcher). Each INSERT is its own
 * transaction, and under load its round trip and commit cost PostgreSQL and this process more than the
 * row itself, so rows asked for during one turn of the event loop, or while `maxInFlight` statements
 * are out, go as one multi-row INSERT. Every caller still waits for the commit that holds its row:
 * nothing is acknowledged before every session can read it (an access token's commit may leave its WAL flush to
 * PostgreSQL's WAL writer: AccessTokenCommit). If a batch fails, its rows are retried one by one, so
 * one bad row fails only its own request.
 */
export class TokenWriter {
  private readonly batcher: Batcher<Row, void>;

  // Two statements in flight (issue 14, measured on the quiet 2-core machine): PostgreSQL's CPU per token falls with the
  // batch size (~550 µs for a lone row, ~100 µs each in batches of 8, ~65 µs in batches of 32, mostly per-statement work),
  // and fewer statements in flight make the batches larger; two still let one commit overlap the next batch.
  constructor(db: Database, maxInFlight = 2, maxBatch = 128, accessTokenCommit: AccessTokenCommit = 'synchronous') {
    // Refresh tokens are always committed synchronously: a person's lasting sign-in in an app is what a crash must not lose.
    const byColumn = {
      access_token_signature: statements('access_token_signature', accessTokenCommit),
      refresh_token_signature: statements('refresh_token_signature', 'synchronous'),
    };
    this.batcher = createBatcher<Row, void>({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      // The statement differs by conflict column.
      group: (row) => row.column,
      // A database that is away fails every row alike: retrying them one by one would only add load.
      retryAlone: (err) => !isDatabaseUnavailable(err),
      run: async (rows, column) => {
        const { one, many } = byColumn[column as ConflictColumn];
        if (rows.length === 1) await db.query(one.sql, rows[0]!.values, one.name);
        else
          await db.query(
            many.sql,
            COLUMN_TYPES.map((_, i) => rows.map((r) => r.values[i])),
            many.name,
          );
        return rows.map(() => undefined);
      },
    });
  }

  write(column: ConflictColumn, values: TokenValues): Promise<void> {
    return this.batcher.submit({ column, values });
  }
}
