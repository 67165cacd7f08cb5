import { createCache } from '../cache.ts';
import { VerifierUnavailableError } from './admin-guard.ts';

/**
 * Whether a principal of identity (a token's `sub`) holds a scope now. Throws `VerifierUnavailableError` when identity
 * cannot answer, so a caller refuses with 503 rather than guessing.
 */
export type HeldScopeCheck = (subject: string, scope: string) => Promise<boolean>;

export interface RemoteHeldScopeOptions {
  /** Base URL of the identity service (its issuer). */
  identityUrl: string;
  /** The calling service's client at identity: an app registered as a resource server. */
  clientId: string;
  clientSecret: string;
  /** How long an answer is reused, in seconds: a right taken away keeps counting at most this long. */
  cacheSeconds?: number;
  /** How long identity may take to answer, in milliseconds. */
  timeoutMs?: number;
}

/**
 * Asks identity's `POST /api/v1/held-scope` with the service's client credentials, and remembers each answer briefly
 * (5 s by default, as the introspection verifier does), so a CI job's burst of requests with one key costs identity
 * one call every few seconds.
 */
export function remoteHeldScope(options: RemoteHeldScopeOptions): HeldScopeCheck {
  const endpoint = new URL('/api/v1/held-scope', options.identityUrl).href;
  const authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const ask = async (key: string): Promise<boolean> => {
    const { subject, scope } = JSON.parse(key) as { subject: string; scope: string };
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ subject, scope }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      throw new VerifierUnavailableError(
        `identity at ${options.identityUrl} does not answer: ${(err as Error).message}`,
      );
    }
    const body = res.ok ? ((await res.json().catch(() => undefined)) as { held?: unknown } | undefined) : undefined;
    if (typeof body?.held !== 'boolean')
      throw new VerifierUnavailableError(
        `identity did not say whether a person holds ${scope} (HTTP ${res.status}): check that the service's identity client is registered as a resource server`,
      );
    return body.held;
  };
  const cache = createCache<boolean>({
    name: 'held-scope',
    load: ask,
    ttlMs: (options.cacheSeconds ?? 5) * 1000,
    maxEntries: 10_000,
  });
  return (subject, scope) => cache.get(JSON.stringify({ subject, scope }));
}
