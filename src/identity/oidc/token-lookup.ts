import type { Database } from '../../kit/db.ts';

export interface TokenRow {
  kind: string;
  payload: string;
  consumed_at: string | null;
  revoked: boolean;
}

interface Waiting {
  promise: Promise<TokenRow | undefined>;
  resolve: (row: TokenRow | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * Looks presented tokens up by signature, many per query. Under load most of the cost of an
 * introspection is the database round trip (a socket write, a wake-up of a PostgreSQL backend,
 * planning), not the index probe, so lookups requested during one turn of the event loop go out as one
 * query, and while `maxInFlight` queries are out the next ones wait and gather.
 *
 * A lookup only ever joins a query that has not been sent yet, so every answer is read after the request
 * that asked for it arrived: a revocation committed before then is always seen.
 */
export class TokenLookup {
  private readonly db: Database;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;
  private waiting = new Map<string, Waiting>();
  private inFlight = 0;
  private scheduled = false;

  constructor(db: Database, maxInFlight = 4, maxBatch = 256) {
    this.db = db;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  find(signature: string): Promise<TokenRow | undefined> {
    const already = this.waiting.get(signature);
    if (already) return already.promise;
    let resolve!: Waiting['resolve'];
    let reject!: Waiting['reject'];
    const promise = new Promise<TokenRow | undefined>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.waiting.set(signature, { promise, resolve, reject });
    this.schedule();
    return promise;
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
    while (this.waiting.size && this.inFlight < this.maxInFlight) {
      const batch = new Map<string, Waiting>();
      for (const [signature, w] of this.waiting) {
        batch.set(signature, w);
        this.waiting.delete(signature);
        if (batch.size >= this.maxBatch) break;
      }
      this.inFlight++;
      this.query([...batch.keys()])
        .then((rows) => {
          for (const [signature, w] of batch) w.resolve(rows.get(signature));
        }, (err: unknown) => {
          for (const w of batch.values()) w.reject(err);
        })
        .finally(() => {
          this.inFlight--;
          if (this.waiting.size) this.schedule();
        });
    }
  }

  private async query(signatures: string[]): Promise<Map<string, TokenRow>> {
    const r = await this.db.query<TokenRow & { signature: string }>(
      `SELECT access_token_signature AS signature, kind, payload, consumed_at::text AS consumed_at, revoked
         FROM oauth_tokens WHERE access_token_signature = ANY($1::text[])
       UNION ALL
       SELECT refresh_token_signature, kind, payload, consumed_at::text, revoked
         FROM oauth_tokens WHERE refresh_token_signature = ANY($1::text[])`,
      [signatures],
    );
    const rows = new Map<string, TokenRow>();
    for (const { signature, ...row } of r.rows) rows.set(signature, row);
    return rows;
  }
}
