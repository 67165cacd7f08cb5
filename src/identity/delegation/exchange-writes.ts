import { createBatcher, type Batcher } from '../../kit/batcher.ts';
import { isDatabaseUnavailable, type Database, type Queryable } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { linkDelegated, tokenRowIds } from '../oidc/delegated-tokens.ts';
import type { ExchangeRecord } from './store.ts';

type Link = ExchangeRecord & { signature: string; parentTokenId: string };

/**
 * The exchange's writes of its own, many per statement (the kit's micro-batcher): the subject token's row id, and
 * linking the issued token to its chain and parent while recording the exchange (one transaction a batch: the link,
 * oidc/delegated-tokens.ts, then the record, row for row). One of each per delegated token cost PostgreSQL a round trip
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
      run: (links) => db.transaction((tx) => linkAndRecordAll(tx, links)),
    });
  }

  /** The row behind a presented token value (its SHA-256), for the parent link of a delegated token. */
  tokenRowId(value: string): Promise<string | undefined> {
    return this.rowIds.submit(sha256Hex(value));
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

/** Links each token and records each exchange whose token was found: issued, or refused when its parent was revoked. */
async function linkAndRecordAll(tx: Queryable, links: Link[]): Promise<(string | undefined)[]> {
  const linked = await linkDelegated(tx, links);
  const found = links.filter((l) => linked.has(l.signature));
  const column = <T>(f: (l: Link) => T) => found.map(f);
  const revoked = (l: Link) => linked.get(l.signature)!.revoked;
  if (found.length)
    await tx.query(
      `INSERT INTO delegation_exchanges (principal_id, actor_id, delegation_chain, client_id, scopes, audience, outcome, error, token_id, parent_token_id, expires_at, client_ip)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[], $4::text[], $5::jsonb[], $6::jsonb[], $7::text[], $8::text[], $9::uuid[], $10::uuid[], $11::timestamptz[], $12::text[])`,
      [
        column((l) => l.principalId),
        column((l) => l.actorId),
        column((l) => JSON.stringify(l.chain)),
        column((l) => l.clientId),
        column((l) => JSON.stringify(l.scopes)),
        column((l) => JSON.stringify(l.audience)),
        column((l) => (revoked(l) ? 'refused' : 'issued')),
        column((l) => (revoked(l) ? 'invalid_grant' : null)),
        column((l) => (revoked(l) ? null : linked.get(l.signature)!.id)),
        column((l) => l.parentTokenId),
        column((l) => l.expiresAt ?? null),
        column((l) => l.clientIp ?? null),
      ],
    );
  return links.map((l) => {
    const row = linked.get(l.signature);
    return row && !row.revoked ? row.id : undefined;
  });
}
