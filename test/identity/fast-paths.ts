import assert from 'node:assert/strict';
import { sha256Hex as sha256 } from '../../src/kit/crypto.ts';
import { form, type Server } from './support.ts';

/**
 * Comparing the token endpoint's two paths (the fast route and the provider's own endpoint, src/identity/oidc/fast-token.ts).
 * An extra, unknown form parameter (which the provider drops) sends a request to the provider, so the same request can be
 * made of both. Which path answered is seen from the provider's `grant.success` and `grant.error` events, which only its
 * own endpoint emits.
 */
export function tokenPaths(server: Server) {
  let providerGrants = 0;
  server.runtime.holder.current.on('grant.success', () => providerGrants++);
  server.runtime.holder.current.on('grant.error', () => providerGrants++);
  const tokenUrl = `${server.issuer}/oauth/token`;
  return {
    tokenUrl,
    /** How many requests the provider's own endpoint has answered so far. */
    providerGrants: () => providerGrants,
    /** The same request through the fast route and through the provider; both answers, and which path the first took. */
    async both(params: Record<string, string>, headers: Record<string, string>) {
      const before = providerGrants;
      const fast = await form(tokenUrl, params, headers);
      const fastWentToProvider = providerGrants > before;
      const slow = await form(tokenUrl, { ...params, via: 'provider' }, headers);
      return { fast, slow, fastWentToProvider };
    },
  };
}

const IGNORED_HEADERS = new Set(['date', 'content-length', 'x-request-id', 'connection', 'keep-alive']);
/** An answer's headers but those that differ between any two answers. */
export const headersOf = (h: Headers) => Object.fromEntries([...h].filter(([k]) => !IGNORED_HEADERS.has(k)));

/** Asserts that the two tokens' rows are alike but for their sealed payloads, and sealed; answers the fast one's row. */
export async function assertStoredAlike(
  server: Server,
  fastToken: string,
  slowToken: string,
): Promise<Record<string, unknown>> {
  const rows = await server.runtime.db.query(
    `SELECT kind, scopes, audience, client_ip, user_agent, subject, principal_id, client_id, app_id, dpop_jkt, access_expires_at - created_at AS lifetime,
            payload LIKE 'v1.%' AS sealed, payload LIKE $3 AS clear
       FROM oauth_tokens WHERE access_token_signature = ANY($1) ORDER BY access_token_signature = $2 DESC`,
    [[fastToken, slowToken].map((t) => sha256(t)), sha256(fastToken), `%${fastToken}%`],
  );
  assert.equal(rows.rows.length, 2, 'both tokens stored');
  const [a, b] = rows.rows.map((r: Record<string, unknown>) => ({
    ...r,
    lifetime: String(r.lifetime).slice(0, 5),
  })) as Record<string, unknown>[];
  assert.deepEqual(a, b, 'the same row, but for the sealed payload');
  assert.equal(a!.sealed, true);
  assert.equal(a!.clear, false, 'the token value is not stored');
  return a!;
}

type Pair = Awaited<ReturnType<ReturnType<typeof tokenPaths>['both']>>;

/**
 * Asserts that the fast route issued the token and answered as the provider did: the same status, headers and members in
 * the same order, the same values but for the token. Answers both tokens and the rest of the fast answer.
 */
export function assertIssuedAlike({ fast, slow, fastWentToProvider }: Pair): {
  fastToken: string;
  slowToken: string;
  rest: Record<string, unknown>;
} {
  assert.equal(fastWentToProvider, false, 'the fast route answered');
  assert.equal(fast.status, 200, fast.text);
  assert.equal(slow.status, 200, slow.text);
  assert.deepEqual(headersOf(fast.headers), headersOf(slow.headers), 'the same headers');
  const { access_token: fastToken, ...rest } = fast.json;
  const { access_token: slowToken, ...slowRest } = slow.json;
  assert.deepEqual(Object.keys(fast.json), Object.keys(slow.json), 'the same members in the same order');
  assert.deepEqual(rest, slowRest);
  assert.equal(fastToken.length, slowToken.length);
  return { fastToken, slowToken, rest };
}

/** Asserts that a request the fast route did not take got the provider's answer, `status` with `error`. */
export function assertHandedOver(
  what: string,
  { fast, slow, fastWentToProvider }: Pair,
  status: number,
  error: string,
): void {
  assert.equal(fast.status, status, `${what}: ${fast.text}`);
  assert.equal(fast.json.error, error, what);
  assert.deepEqual([fast.status, fast.json], [slow.status, slow.json], `${what}: the provider's answer`);
  assert.deepEqual(headersOf(fast.headers), headersOf(slow.headers), `${what}: the provider's headers`);
  assert.equal(fastWentToProvider, true, `${what}: answered by the provider`);
}
