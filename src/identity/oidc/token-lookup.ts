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

/**
 * The row ids of access tokens looked up lately, by signature (a row's id never changes, so a remembered one is never
 * stale): the delegation exchange links its token to the subject's row, just looked up here, without asking again
 * (delegation/exchange-writes.ts). Past MAX_ROW_IDS entries it starts over.
 */
const rowIds = new Map<string, string>();
const MAX_ROW_IDS = 10_000;

/** The row id of an access token looked up lately by its signature, if remembered. */
export function lookedUpRowId(signature: string): string | undefined {
  return rowIds.get(signature);
}

// Planned at each call, not prepared: a generic plan made while oauth_tokens is small is a sequential scan, kept until
// an ANALYZE invalidates it (db.ts).
async function query(db: Database, signatures: string[]): Promise<Map<string, TokenRow>> {
  const r = await db.query<TokenRow & { signature: string; id: string; access: boolean }>(
    `SELECT access_token_signature AS signature, kind, payload, consumed_at::text AS consumed_at, revoked, id, true AS access
       FROM oauth_tokens WHERE access_token_signature = ANY($1::text[])
     UNION ALL
     SELECT refresh_token_signature, kind, payload, consumed_at::text, revoked, id, false
       FROM oauth_tokens WHERE refresh_token_signature = ANY($1::text[])`,
    [signatures],
  );
  const rows = new Map<string, TokenRow>();
  for (const { signature, id, access, ...row } of r.rows) {
    rows.set(signature, row);
    if (!access) continue;
    if (rowIds.size >= MAX_ROW_IDS) rowIds.clear();
    rowIds.set(signature, id);
  }
  return rows;
}
