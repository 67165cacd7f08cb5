import { sha256Hex } from '../../kit/crypto.ts';

export interface IntrospectionConfig {
  url: string;
  clientId: string;
  clientSecret: string;
  requiredScope: string | undefined;
}

export type IntrospectionVerdict = { active: true; subject: string } | { active: false; reason: string };

const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;
const TIMEOUT_MS = 5_000;

/**
 * Asks the identity service whether an access token is active (RFC 7662, client authenticated with HTTP
 * Basic). Active answers are cached for at most 30 s and never beyond the token's expiry, keyed by the
 * token's hash, so a revoked token stops working within 30 s.
 */
export function createIntrospector(config: IntrospectionConfig) {
  const cache = new Map<string, { verdict: IntrospectionVerdict; until: number }>();
  const basic = 'Basic ' + Buffer.from(`${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`).toString('base64');
  return async function introspect(token: string): Promise<IntrospectionVerdict> {
    const key = sha256Hex(token);
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.verdict;
    cache.delete(key);
    const response = await fetch(config.url, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`the introspection endpoint answered HTTP ${response.status}`);
    const body = (await response.json()) as { active?: unknown; sub?: unknown; client_id?: unknown; scope?: unknown; exp?: unknown };
    let verdict: IntrospectionVerdict;
    if (body.active !== true) verdict = { active: false, reason: 'the access token is not active' };
    else if (config.requiredScope && !(typeof body.scope === 'string' && body.scope.split(' ').includes(config.requiredScope))) {
      verdict = { active: false, reason: `the access token lacks the scope ${config.requiredScope}` };
    } else {
      const subject = typeof body.sub === 'string' && body.sub ? body.sub : typeof body.client_id === 'string' ? body.client_id : '';
      verdict = subject ? { active: true, subject } : { active: false, reason: 'the access token names no subject' };
    }
    if (verdict.active) {
      const exp = typeof body.exp === 'number' ? body.exp * 1000 : now + CACHE_MS;
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(key, { verdict, until: Math.min(now + CACHE_MS, exp) });
    }
    return verdict;
  };
}
