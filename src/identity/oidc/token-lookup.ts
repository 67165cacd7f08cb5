import { createBatcher, type Batcher } from '../../kit/batcher.ts';
import type { Database } from '../../kit/db.ts';

export interface TokenRow {
  kind: string;
  payload: string;
  consumed_at: string | null;
  revoked: boolean;
}

/**
 * Which column a lookup reads: `access` (access and client-credentials tokens), `refresh`, or `either` when the kind is
 * not known. An access token's row has no refresh signature and a refresh token's no access signature (adapter.ts's
 * upsert), so a model's own column is all its lookup needs.
 */
export type LookupColumn = 'access' | 'refresh' | 'either';

interface Wanted {
  signature: string;
  column: LookupColumn;
}

/**
 * Looks presented tokens up by signature, many per query (the kit's micro-batcher). Under load most of
 * the cost of an introspection is the database round trip (a socket write, a wake-up of a PostgreSQL
 * backend, planning), not the index probe, so lookups requested during one turn of the event loop go
 * out as one query, and while `maxInFlight` queries are out the next ones wait and gather. The query probes only the
 * columns its lookups need: an introspection hinted as an access token probes no refresh signatures.
 *
 * A lookup only ever joins a query that has not been sent yet, so every answer is read after the request
 * that asked for it arrived: a revocation committed before then is always seen.
 */
export class TokenLookup {
  private readonly batcher: Batcher<Wanted, TokenRow | undefined>;

  constructor(db: Database, maxInFlight = 4, maxBatch = 256) {
    this.batcher = createBatcher({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      key: (wanted) => `${wanted.column}:${wanted.signature}`,
      run: async (wanted) => {
        const { access, refresh } = await query(db, wanted);
        return wanted.map(({ signature, column }) =>
          column === 'access'
            ? access.get(signature)
            : column === 'refresh'
              ? refresh.get(signature)
              : (access.get(signature) ?? refresh.get(signature)),
        );
      },
    });
  }

  find(signature: string, column: LookupColumn = 'either'): Promise<TokenRow | undefined> {
    return this.batcher.submit({ signature, column });
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

const SELECT_ACCESS = `SELECT access_token_signature AS signature, kind, payload, consumed_at::text AS consumed_at, revoked, id, true AS access
       FROM oauth_tokens WHERE access_token_signature = ANY($1::text[])`;
const SELECT_REFRESH = (
  param: string,
) => `SELECT refresh_token_signature AS signature, kind, payload, consumed_at::text AS consumed_at, revoked, id, false AS access
       FROM oauth_tokens WHERE refresh_token_signature = ANY(${param}::text[])`;

// Planned at each call, not prepared: a generic plan made while oauth_tokens is small is a sequential scan, kept until
// an ANALYZE invalidates it (db.ts).
async function query(
  db: Database,
  wanted: Wanted[],
): Promise<{ access: Map<string, TokenRow>; refresh: Map<string, TokenRow> }> {
  const accessSignatures: string[] = [];
  const refreshSignatures: string[] = [];
  for (const { signature, column } of wanted) {
    if (column !== 'refresh') accessSignatures.push(signature);
    if (column !== 'access') refreshSignatures.push(signature);
  }
  const r = !refreshSignatures.length
    ? await db.query<Found>(SELECT_ACCESS, [accessSignatures])
    : !accessSignatures.length
      ? await db.query<Found>(SELECT_REFRESH('$1'), [refreshSignatures])
      : await db.query<Found>(`${SELECT_ACCESS}\n     UNION ALL\n     ${SELECT_REFRESH('$2')}`, [
          accessSignatures,
          refreshSignatures,
        ]);
  const access = new Map<string, TokenRow>();
  const refresh = new Map<string, TokenRow>();
  for (const { signature, id, access: isAccess, ...row } of r.rows) {
    if (!isAccess) {
      refresh.set(signature, row);
      continue;
    }
    access.set(signature, row);
    if (rowIds.size >= MAX_ROW_IDS) rowIds.clear();
    rowIds.set(signature, id);
  }
  return { access, refresh };
}

type Found = TokenRow & { signature: string; id: string; access: boolean };
