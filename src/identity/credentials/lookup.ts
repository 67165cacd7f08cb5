import { createBatcher, type Batcher } from '../../kit/batcher.ts';
import { isDatabaseUnavailable, type Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { API_KEY_PREFIX, USABLE, type UsableCredential } from './store.ts';

interface CredentialRow {
  id: string;
  principal_id: string;
  scopes: string[];
  public_key: string | null;
  key_algorithm: string | null;
  /** The secret hash (API keys) or the key id (key pairs) the row was asked for by. */
  asked: string;
}

interface Jti {
  hash: string;
  principalId: string;
  expiresAt: Date;
}

const usable = (row: CredentialRow): UsableCredential => ({
  id: row.id,
  principalId: row.principal_id,
  scopes: row.scopes,
  publicKey: row.public_key,
  keyAlgorithm: row.key_algorithm,
});

/**
 * The credential grants' reads and writes, many per statement (the kit's micro-batcher): a live API key by its hash, a
 * live key pair by its key id, and an assertion's jti spent. Each was one statement per token request, and on a busy
 * token endpoint a statement's round trip (a socket write, waking a backend, planning, a commit) cost both processes
 * more than the row (issue 14: PostgreSQL ~390 µs per API-key token, ~890 µs per key-pair token).
 *
 * A lookup only ever joins a query not yet sent, so a revocation committed before the request arrived is always seen.
 */
export class CredentialLookup {
  private readonly apiKeys: Batcher<string, UsableCredential | undefined>;
  private readonly keypairs: Batcher<string, UsableCredential | undefined>;
  private readonly jtis: Batcher<Jti, boolean>;

  constructor(db: Database, maxInFlight = 4, maxBatch = 256) {
    const select = (type: 'api_key' | 'keypair', column: 'secret_hash' | 'key_id') => async (asked: string[]) => {
      const r = await db.query<CredentialRow>(
        `SELECT id, principal_id, scopes, public_key, key_algorithm, ${column} AS asked FROM credentials
          WHERE type = '${type}' AND ${column} = ANY($1::text[]) AND ${USABLE}`,
        [asked],
      );
      const found = new Map(r.rows.map((row) => [row.asked, usable(row)]));
      return asked.map((a) => found.get(a));
    };
    // Planned at each call, not prepared: a generic plan made while credentials is small can be a sequential scan (db.ts).
    this.apiKeys = createBatcher({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      key: (hash) => hash,
      run: select('api_key', 'secret_hash'),
    });
    this.keypairs = createBatcher({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      key: (kid) => kid,
      run: select('keypair', 'key_id'),
    });
    this.jtis = createBatcher<Jti, boolean>({
      maxInFlight,
      maxBatch,
      gather: 'tick',
      retryAlone: (err) => !isDatabaseUnavailable(err),
      run: async (items) => {
        const r = await db.query<{ jti_hash: string }>(
          `INSERT INTO assertion_jtis (jti_hash, principal_id, expires_at)
           SELECT * FROM unnest($1::text[], $2::uuid[], $3::timestamptz[]) ON CONFLICT DO NOTHING RETURNING jti_hash`,
          [items.map((j) => j.hash), items.map((j) => j.principalId), items.map((j) => j.expiresAt)],
          'identity_spend_jtis',
        );
        // The same jti twice in one batch is inserted once: only its first request spends it, the others are replays.
        const spent = new Set(r.rows.map((row) => row.jti_hash));
        return items.map((j) => spent.delete(j.hash));
      },
    });
  }

  /** The live API key with this value, if any. */
  apiKey(value: string): Promise<UsableCredential | undefined> {
    if (!value.startsWith(API_KEY_PREFIX) || value.length > 200) return Promise.resolve(undefined);
    return this.apiKeys.submit(sha256Hex(value));
  }

  /** The live key-pair credential with this key id, if any. */
  keypair(keyId: string): Promise<UsableCredential | undefined> {
    if (keyId.length > 200) return Promise.resolve(undefined);
    return this.keypairs.submit(keyId);
  }

  /** Records an assertion's jti as spent; false when it was spent before (a replay). */
  spendJti(principalId: string, jti: string, expiresAt: Date): Promise<boolean> {
    return this.jtis.submit({ hash: sha256Hex(`${principalId}:${jti}`), principalId, expiresAt });
  }
}

/** Forgets spent jtis whose assertion has expired: after that the assertion is refused for its exp anyway. */
export async function purgeSpentJtis(db: Database): Promise<void> {
  await db.query('DELETE FROM assertion_jtis WHERE expires_at < now()');
}
