import { sha256Hex } from '../crypto.ts';
import { VerifierUnavailableError, type TokenInfo, type TokenVerifier } from './admin-guard.ts';

export interface IntrospectionOptions {
  /** Base URL of the identity service (its issuer); the introspection endpoint comes from its discovery document. */
  identityUrl: string;
  /** The calling service's client at identity (a `service` or `machine` app), which identity lets introspect. */
  clientId: string;
  clientSecret: string;
  /** How long an answer is reused, in seconds: a revoked token keeps working at most this long. */
  cacheSeconds?: number;
  /** Most answers kept; the oldest go first. */
  maxEntries?: number;
  /** How long identity may take to answer, in milliseconds. */
  timeoutMs?: number;
}

interface Entry {
  info: TokenInfo | undefined;
  until: number;
}

/**
 * A `TokenVerifier` that asks the platform's identity service (RFC 7662 token introspection,
 * authenticated with the service's client credentials) and remembers each answer briefly, keyed by the
 * token's SHA-256, so a busy admin client costs identity one call per token every few seconds.
 * Concurrent checks of one token share one call. Only access tokens count: a refresh token is refused
 * even when identity says it is active. A DPoP-bound token (`token_type` DPoP) counts with its `cnf.jkt`,
 * which the caller must then check a proof against (the admin guard does).
 */
export function introspectionVerifier(options: IntrospectionOptions): TokenVerifier {
  const ttlMs = (options.cacheSeconds ?? 5) * 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<TokenInfo | undefined>>();
  const authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;
  let endpoint: Promise<string> | undefined;

  const post = async (url: string, init: RequestInit) => {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    } catch (err) {
      throw new VerifierUnavailableError(
        `identity at ${options.identityUrl} does not answer: ${(err as Error).message}`,
      );
    }
  };

  const discover = async () => {
    const res = await post(new URL('/.well-known/openid-configuration', options.identityUrl).href, {});
    const doc = res.ok
      ? ((await res.json().catch(() => undefined)) as { introspection_endpoint?: unknown } | undefined)
      : undefined;
    if (typeof doc?.introspection_endpoint !== 'string')
      throw new VerifierUnavailableError(
        `identity at ${options.identityUrl} publishes no introspection endpoint (discovery answered ${res.status})`,
      );
    return doc.introspection_endpoint;
  };

  const ask = async (token: string): Promise<TokenInfo | undefined> => {
    endpoint ??= discover().catch((err) => {
      endpoint = undefined;
      throw err;
    });
    const res = await post(await endpoint, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
    });
    if (!res.ok)
      throw new VerifierUnavailableError(
        `identity refused the introspection (HTTP ${res.status}): check the service's identity client id and secret`,
      );
    const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (body?.active !== true) return undefined;
    // A DPoP-bound token counts with its key's thumbprint (RFC 9449 §6.2), which the guard checks the request's proof against.
    const cnf = body.cnf as { jkt?: unknown } | undefined;
    const jkt = typeof cnf?.jkt === 'string' && cnf.jkt.length > 0 ? cnf.jkt : undefined;
    const type = typeof body.token_type === 'string' ? body.token_type.toLowerCase() : undefined;
    if (type !== undefined && type !== 'bearer' && !(type === 'dpop' && jkt)) return undefined;
    return {
      scopes: typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [],
      subject: typeof body.sub === 'string' ? body.sub : undefined,
      clientId: typeof body.client_id === 'string' ? body.client_id : undefined,
      expiresAt: typeof body.exp === 'number' ? body.exp : undefined,
      jkt,
    };
  };

  const remember = (key: string, info: TokenInfo | undefined) => {
    const now = Date.now();
    const until = Math.min(now + ttlMs, info?.expiresAt !== undefined ? info.expiresAt * 1000 : Infinity);
    if (until <= now) return;
    cache.delete(key);
    cache.set(key, { info, until });
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };

  return async (token) => {
    const key = sha256Hex(token);
    const hit = cache.get(key);
    if (hit && hit.until > Date.now()) return hit.info;
    if (hit) cache.delete(key);
    let pending = inFlight.get(key);
    if (!pending) {
      pending = ask(token)
        .then((info) => {
          remember(key, info);
          return info;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };
}
