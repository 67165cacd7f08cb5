import { createBatcher, type Batcher } from '../../kit/batcher.ts';
import { isDatabaseUnavailable, type Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import type { ExchangeRecord } from './store.ts';

type Link = ExchangeRecord & { signature: string; parentTokenId: string };

/**
 * The exchange's two statements of its own, many per statement (the kit's micro-batcher): the subject token's row id,
 * and linking the issued token to its chain and parent while recording the exchange (store.ts's linkAndRecord, row for
 * row). One of each per delegated token cost PostgreSQL a round trip and a commit apiece (issue 14).
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
      run: async (signatures) => {
        const r = await db.query<{ id: string; signature: string }>(
          'SELECT id, access_token_signature AS signature FROM oauth_tokens WHERE access_token_signature = ANY($1::text[])',
          [signatures],
        );
        const ids = new Map(r.rows.map((row) => [row.signature, row.id]));
        return signatures.map((s) => ids.get(s));
      },
    });
    this.links = createBatcher<Link, string | undefined>({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      retryAlone: (err) => !isDatabaseUnavailable(err),
      run: async (links) => {
        const column = <T>(f: (l: Link) => T) => links.map(f);
        const r = await db.query<{ signature: string; id: string; revoked: boolean }>(
          `WITH v AS (
             SELECT * FROM unnest($1::text[], $2::jsonb[], $3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::jsonb[], $8::jsonb[], $9::timestamptz[], $10::text[])
               AS v(signature, chain, parent_id, principal_id, actor_id, client_id, scopes, audience, expires_at, client_ip)),
           linked AS (
             UPDATE oauth_tokens t SET delegation_chain = v.chain, parent_token_id = v.parent_id,
                    revoked = t.revoked OR p.revoked, revoked_at = CASE WHEN p.revoked THEN now() ELSE t.revoked_at END,
                    revoked_reason = CASE WHEN p.revoked THEN 'parent_revoked' ELSE t.revoked_reason END
               FROM v JOIN oauth_tokens p ON p.id = v.parent_id
              WHERE t.access_token_signature = v.signature
              RETURNING t.id, t.revoked, t.access_token_signature AS signature),
           recorded AS (
             INSERT INTO delegation_exchanges (principal_id, actor_id, delegation_chain, client_id, scopes, audience, outcome, error, token_id, parent_token_id, expires_at, client_ip)
             SELECT v.principal_id, v.actor_id, v.chain, v.client_id, v.scopes, v.audience, CASE WHEN l.revoked THEN 'refused' ELSE 'issued' END,
                    CASE WHEN l.revoked THEN 'invalid_grant' END, CASE WHEN l.revoked THEN NULL ELSE l.id END, v.parent_id, v.expires_at, v.client_ip
               FROM linked l JOIN v ON v.signature = l.signature)
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
      },
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
