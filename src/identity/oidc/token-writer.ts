import type { Database } from '../../kit/db.ts';

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
];

export type ConflictColumn = 'access_token_signature' | 'refresh_token_signature';

const COLUMN_TYPES = ['text', 'text', 'text', 'text', 'jsonb', 'jsonb', 'text', 'timestamptz', 'timestamptz', 'text', 'text', 'text', 'uuid', 'text', 'uuid', 'text'];

const INSERT_INTO = `INSERT INTO oauth_tokens (kind, access_token_signature, refresh_token_signature, family_id, grant_hash, scopes, audience,
  session_id, access_expires_at, refresh_expires_at, client_ip, user_agent, subject, principal_id, client_id, app_id, payload)`;

function onConflict(column: ConflictColumn): string {
  return `ON CONFLICT (${column}) DO UPDATE SET payload = EXCLUDED.payload, access_expires_at = EXCLUDED.access_expires_at,
    refresh_expires_at = EXCLUDED.refresh_expires_at, scopes = EXCLUDED.scopes`;
}

function singleRow(column: ConflictColumn): string {
  return `${INSERT_INTO}
    VALUES ($1, $2, $3, (SELECT id FROM oauth_grants WHERE grant_hash = $4), $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
    ${onConflict(column)}`;
}

function manyRows(column: ConflictColumn): string {
  const arrays = COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
  return `${INSERT_INTO}
    SELECT v.c1, v.c2, v.c3, (SELECT g.id FROM oauth_grants g WHERE g.grant_hash = v.c4), v.c4, v.c5, v.c6, v.c7, v.c8, v.c9, v.c10,
      v.c11, v.c12, v.c13, v.c14, v.c15, v.c16
    FROM unnest(${arrays}) AS v(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16)
    ${onConflict(column)}`;
}

const STATEMENTS = {
  access_token_signature: { one: singleRow('access_token_signature'), many: manyRows('access_token_signature') },
  refresh_token_signature: { one: singleRow('refresh_token_signature'), many: manyRows('refresh_token_signature') },
} as const;

interface Pending {
  values: TokenValues;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Writes issued tokens, many per statement. Each INSERT is its own transaction, and under load its
 * round trip and commit cost PostgreSQL and this process more than the row itself, so rows asked for
 * during one turn of the event loop, or while `maxInFlight` statements are out, go as one multi-row
 * INSERT. Every caller still waits for the commit that holds its row: nothing is acknowledged before
 * it is stored. If a batch fails, its rows are retried one by one, so one bad row fails only its own
 * request.
 */
export class TokenWriter {
  private readonly db: Database;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;
  private readonly queues = new Map<ConflictColumn, Pending[]>([['access_token_signature', []], ['refresh_token_signature', []]]);
  private inFlight = 0;
  private scheduled = false;

  constructor(db: Database, maxInFlight = 4, maxBatch = 128) {
    this.db = db;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  write(column: ConflictColumn, values: TokenValues): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queues.get(column)!.push({ values, resolve, reject });
      this.schedule();
    });
  }

  private waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    for (const [column, queue] of this.queues) {
      while (queue.length && this.inFlight < this.maxInFlight) {
        const batch = queue.splice(0, this.maxBatch);
        this.inFlight++;
        this.insert(column, batch)
          // Nothing is expected to escape insert(); if something does, no caller is left waiting.
          .catch((err: unknown) => {
            for (const p of batch) p.reject(err);
          })
          .finally(() => {
            this.inFlight--;
            if (this.waiting()) this.schedule();
          });
      }
    }
  }

  private async insert(column: ConflictColumn, batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      const arrays = COLUMN_TYPES.map((_, i) => batch.map((p) => p.values[i]));
      try {
        await this.db.query(STATEMENTS[column].many, arrays);
        for (const p of batch) p.resolve();
        return;
      } catch {
        // Fall through: which row failed, and why, is found by writing them one at a time.
      }
    }
    await Promise.all(batch.map((p) => this.db.query(STATEMENTS[column].one, p.values).then(() => p.resolve(), p.reject)));
  }
}
