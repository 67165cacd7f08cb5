import { createBatcher, type Batcher } from '../../kit/batcher.ts';
import { isDatabaseUnavailable, type Database, type Queryable } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { LINK_DELEGATED, tokenRowIds } from '../oidc/delegated-tokens.ts';
import { lookedUpRowId } from '../oidc/token-lookup.ts';
import type { ExchangeRecord } from './store.ts';

type Link = ExchangeRecord & { signature: string; parentTokenId: string };

/**
 * The exchange's writes of its own, many per statement (the kit's micro-batcher): the subject token's row id, and
 * linking the issued token to its chain and parent while recording the exchange (one statement a batch: the link,
 * oidc/delegated-tokens.ts, and the record, row for row). One of each per delegated token cost PostgreSQL a round trip
 * and a commit apiece (issue 14).
 *
 * A lookup only ever joins a query not yet sent, so it reads what was committed before its request arrived; each link
 * still checks its parent's revocation in the statement that links it.
 */
export class ExchangeWrites {
  private readonly rowIds: Batcher<string, string | undefined>;
  private readonly links: Batcher<Link, string | undefined>;

  constructor(db: Database, maxInFlight = 4, maxBatch = 128) {
    this.rowIds = createBatcher({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      key: (signature) => signature,
      run: (signatures) => tokenRowIds(db, signatures),
    });
    this.links = createBatcher<Link, string | undefined>({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      retryAlone: (err) => !isDatabaseUnavailable(err),
      run: (links) => linkAndRecordAll(db, links),
    });
  }

  /**
   * The row behind a presented token value (its SHA-256), for the parent link of a delegated token: remembered from the
   * subject token's own lookup (oidc/token-lookup.ts) when it was just looked up, else read.
   */
  tokenRowId(value: string): Promise<string | undefined> {
    const signature = sha256Hex(value);
    const known = lookedUpRowId(signature);
    return known ? Promise.resolve(known) : this.rowIds.submit(signature);
  }

  /**
   * Marks a just-issued token as delegated (its chain and its parent) and records the exchange. If the parent was
   * revoked meanwhile the new token is revoked too and the exchange recorded as refused; answers the token's row id, or
   * undefined then.
   */
  linkAndRecord(value: string, record: ExchangeRecord & { parentTokenId: string }): Promise<string | undefined> {
    return this.links.submit({ ...record, signature: sha256Hex(value) });
  }
}

/**
 * Links each token and records each exchange whose token was found: issued, or refused when its parent was revoked. One
 * statement (atomic as a transaction is, and one round trip rather than four: BEGIN, the link, the record, COMMIT): the
 * link is delegated-tokens.ts's (LINK_DELEGATED), the record reads what it returned.
 */
async function linkAndRecordAll(db: Queryable, links: Link[]): Promise<(string | undefined)[]> {
  const column = <T>(f: (l: Link) => T) => links.map(f);
  const r = await db.query<{ signature: string; id: string; revoked: boolean }>(
    `WITH v AS (SELECT * FROM unnest($1::text[], $2::jsonb[], $3::uuid[]) AS v(signature, chain, parent_id)),
     linked AS (${LINK_DELEGATED}),
     r AS (SELECT * FROM unnest($1::text[], $4::uuid[], $5::uuid[], $6::text[], $7::jsonb[], $8::jsonb[], $9::timestamptz[], $10::text[])
             AS r(signature, principal_id, actor_id, client_id, scopes, audience, expires_at, client_ip)),
     recorded AS (
       INSERT INTO delegation_exchanges (principal_id, actor_id, delegation_chain, client_id, scopes, audience, outcome, error, token_id, parent_token_id, expires_at, client_ip)
       SELECT r.principal_id, r.actor_id, v.chain, r.client_id, r.scopes, r.audience,
              CASE WHEN l.revoked THEN 'refused' ELSE 'issued' END, CASE WHEN l.revoked THEN 'invalid_grant' END,
              CASE WHEN l.revoked THEN NULL ELSE l.id END, v.parent_id, r.expires_at, r.client_ip
         FROM linked l JOIN v ON v.signature = l.signature JOIN r ON r.signature = l.signature)
     SELECT signature, id, revoked FROM linked`,
    [
      column((l) => l.signature),
      column((l) => JSON.stringify(l.chain)),
      column((l) => l.parentTokenId),
      column((l) => l.principalId),
      column((l) => l.actorId),
      column((l) => l.clientId),
      column((l) => JSON.stringify(l.scopes)),
      column((l) => JSON.stringify(l.audience)),
      column((l) => l.expiresAt ?? null),
      column((l) => l.clientIp ?? null),
    ],
  );
  const linked = new Map(r.rows.map((row) => [row.signature, row]));
  return links.map((l) => {
    const row = linked.get(l.signature);
    return row && !row.revoked ? row.id : undefined;
  });
}
