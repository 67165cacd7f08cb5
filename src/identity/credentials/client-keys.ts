import { createPublicKey } from 'node:crypto';
import type { Database } from '../../kit/db.ts';
import type { PublicKeys } from '../oidc/clients.ts';
import { USABLE } from './store.ts';

/**
 * The live key pairs of an app's principal as JWKs, for the provider's client (oidc/clients.ts puts them in its `jwks`):
 * what the app's client assertions may be signed with (private_key_jwt).
 */
export function clientKeys(db: Database): PublicKeys {
  return async (principalId) => {
    const rows = await db.query<{ key_id: string; public_key: string; key_algorithm: string }>(
      `SELECT key_id, public_key, key_algorithm FROM credentials
        WHERE principal_id = $1 AND type = 'keypair' AND ${USABLE} ORDER BY created_at, id`,
      [principalId],
    );
    const keys: Record<string, unknown>[] = [];
    for (const row of rows.rows) {
      try {
        const jwk = createPublicKey(row.public_key).export({ format: 'jwk' });
        keys.push({ ...jwk, kid: row.key_id, alg: row.key_algorithm, use: 'sig' });
      } catch {
        // A stored key that no longer parses could sign nothing: left out rather than failing the app's every request.
      }
    }
    return keys;
  };
}
