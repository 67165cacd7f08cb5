import { createBatcher, type Batcher } from '../../kit/batcher.ts';
import type { Database } from '../../kit/db.ts';

export interface TokenRow {
  kind: string;
  payload: string;
  consumed_at: string | null;
  revoked: boolean;
}

/**
 * Looks presented tokens up by signature, many per query (the kit's micro-batcher). Under load most of
 * the cost of an introspection is the database round trip (a socket write, a wake-up of a PostgreSQL
 * backend, planning), not the index probe, so lookups requested during one turn of the event loop go
 * out as one query, and while `maxInFlight` queries are out the next ones wait and gather.
 *
 * A lookup only ever joins a query that has not been sent yet, so every answer is read after the request
 * that asked for it arrived: a revocation committed before then is always seen.
 */
export class TokenLookup {
  private readonly batcher: Batcher<string, TokenRow | undefined>;

  constructor(db: Database, maxInFlight = 4, maxBatch = 256) {
    this.batcher = createBatcher({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      key: (signature) => signature,
      run: async (signatures) => {
        const rows = await query(db, signatures);
        return signatures.map((s) => rows.get(s));
      },
    });
  }

  find(signature: string): Promise<TokenRow | undefined> {
    return this.batcher.submit(signature);
  }
}

// Planned at each call, not prepared: a generic plan made while oauth_tokens is small is a sequential scan, kept until
// an ANALYZE invalidates it (db.ts).
async function query(db: Database, signatures: string[]): Promise<Map<string, TokenRow>> {
  const r = await db.query<TokenRow & { signature: string }>(
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
