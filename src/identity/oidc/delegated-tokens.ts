import type { Queryable } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { isoUtc } from '../../kit/sql.ts';

/**
 * The delegation columns of oauth_tokens (migration 011: delegation_chain, parent_token_id, and the trigger that cascades
 * a revocation down the chain), for src/identity/delegation: it asks here rather than touching the provider's table.
 */

/** Whether a token and every token it was delegated from are unrevoked (the parents are followed up the chain). */
export async function chainUnrevoked(db: Queryable, value: string): Promise<boolean> {
  const r = await db.query<{ revoked: boolean | null; hops: number }>(
    `WITH RECURSIVE up(id, parent_token_id, revoked, depth) AS (
       SELECT id, parent_token_id, revoked, 0 FROM oauth_tokens WHERE access_token_signature = $1
       UNION ALL
       SELECT t.id, t.parent_token_id, t.revoked, up.depth + 1 FROM oauth_tokens t JOIN up ON t.id = up.parent_token_id WHERE up.depth < 20)
     SELECT bool_or(revoked) AS revoked, count(*)::int AS hops FROM up`,
    [sha256Hex(value)],
  );
  const row = r.rows[0];
  return row !== undefined && row.hops > 0 && row.revoked === false;
}

/** Revokes every live token `agentId` holds for the person (`approval_revoked`); the cascade takes the tokens below. */
export async function revokeHeldTokens(db: Queryable, principalId: string, agentId: string): Promise<void> {
  await db.query(
    `UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = 'approval_revoked'
      WHERE principal_id = $1 AND delegation_chain IS NOT NULL AND delegation_chain ->> -1 = $2 AND NOT revoked`,
    [principalId, agentId],
  );
}

export interface DelegatedTokenView {
  id: string;
  actor_id: string;
  delegation_chain: string[];
  parent_token_id: string | null;
  client_id: string;
  scopes: string[];
  audience: string[];
  dpop_bound: boolean;
  created_at: string;
  expires_at: string;
}

/** Live tokens agents hold for this person, newest first: those with one of `agentIds` in their chain. */
export async function liveDelegatedTokens(
  db: Queryable,
  principalId: string,
  agentIds: readonly string[],
): Promise<DelegatedTokenView[]> {
  if (!agentIds.length) return [];
  const r = await db.query<DelegatedTokenView>(
    `SELECT id, delegation_chain ->> -1 AS actor_id, delegation_chain, parent_token_id, client_id, scopes, audience, dpop_jkt IS NOT NULL AS dpop_bound,
            ${isoUtc('created_at')} AS created_at, ${isoUtc('access_expires_at')} AS expires_at
       FROM oauth_tokens
      WHERE principal_id = $1 AND delegation_chain IS NOT NULL AND NOT revoked AND access_expires_at > now()
        AND delegation_chain ?| $2::text[]
      ORDER BY oauth_tokens.created_at DESC, oauth_tokens.id`,
    [principalId, agentIds],
  );
  return r.rows;
}

/** The agents holding a live token for this person, in id order after `after`, at most `limit`. */
export async function tokenHolderIds(
  db: Queryable,
  principalId: string,
  page: { limit: number; after?: string | undefined },
): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT DISTINCT (delegation_chain ->> -1)::uuid AS id FROM oauth_tokens
      WHERE principal_id = $1 AND delegation_chain IS NOT NULL AND NOT revoked AND access_expires_at > now()
        AND ($2::uuid IS NULL OR (delegation_chain ->> -1)::uuid > $2)
      ORDER BY id LIMIT $3`,
    [principalId, page.after ?? null, page.limit],
  );
  return r.rows.map((x) => x.id);
}

/** The rows behind presented token values (their SHA-256s), in their order; undefined where none is. */
export async function tokenRowIds(db: Queryable, signatures: readonly string[]): Promise<(string | undefined)[]> {
  const r = await db.query<{ id: string; signature: string }>(
    'SELECT id, access_token_signature AS signature FROM oauth_tokens WHERE access_token_signature = ANY($1::text[])',
    [signatures],
  );
  const ids = new Map(r.rows.map((row) => [row.signature, row.id]));
  return signatures.map((s) => ids.get(s));
}

/**
 * Marks just-issued tokens as delegated (their chain and parent), as a statement's common table expression: it reads `v`
 * (signature: the issued token's SHA-256, chain, parent_id) and answers each token found, with its row id and whether it
 * is revoked. A token whose parent was revoked meanwhile is revoked with it (`parent_revoked`).
 */
export const LINK_DELEGATED = `UPDATE oauth_tokens t SET delegation_chain = v.chain, parent_token_id = v.parent_id,
       revoked = t.revoked OR p.revoked, revoked_at = CASE WHEN p.revoked THEN now() ELSE t.revoked_at END,
       revoked_reason = CASE WHEN p.revoked THEN 'parent_revoked' ELSE t.revoked_reason END
  FROM v JOIN oauth_tokens p ON p.id = v.parent_id
 WHERE t.access_token_signature = v.signature
 RETURNING t.id, t.revoked, t.access_token_signature AS signature`;
