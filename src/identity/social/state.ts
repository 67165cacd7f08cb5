import { openSealedString, randomToken, seal, sha256Hex } from '../../kit/crypto.ts';
import type { Queryable } from '../../kit/db.ts';
import type { LoginChecks } from '../../kit/upstream-login/provider.ts';

/** How long a browser has to come back from the provider. */
export const LOGIN_STATE_TTL_SECONDS = 600;
/** Binds the callback to the browser that started the login (the state value itself; only its hash is stored). */
export const UPSTREAM_COOKIE = '__Host-svc_upstream';

export interface PendingUpstreamLogin extends LoginChecks {
  provider: string;
  /** Where the login continues: the interaction page it was started from, or the linked accounts page. */
  redirectUrl: string;
  /** Set when the person signed in as this principal asked to link an upstream account (not a sign-in). */
  linkPrincipalId?: string | undefined;
}

const context = (stateHash: string, what: string) => `login_state:${stateHash}:${what}`;

/**
 * A LoginState row: keyed by the SHA-256 of the state value, the PKCE verifier and the nonce sealed
 * (AES-256-GCM bound to the row), expiring after 10 minutes. The state value goes only to the
 * provider (as `state`) and to the browser's cookie.
 */
export async function beginUpstreamLogin(
  db: Queryable,
  secretKey: Buffer,
  provider: string,
  redirectUrl: string,
  linkPrincipalId?: string,
): Promise<PendingUpstreamLogin> {
  const checks = { state: randomToken(32), codeVerifier: randomToken(48), nonce: randomToken(24) };
  const stateHash = sha256Hex(checks.state);
  // Abandoned logins go as new ones begin: the table never holds more than ten minutes of them.
  await db.query('DELETE FROM login_states WHERE expires_at < now()');
  await db.query(
    `INSERT INTO login_states (state_hash, provider, redirect_url, nonce, pkce_verifier, expires_at, link_principal_id)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7)`,
    [
      stateHash,
      provider,
      redirectUrl,
      seal(secretKey, checks.nonce, context(stateHash, 'nonce')),
      seal(secretKey, checks.codeVerifier, context(stateHash, 'pkce')),
      LOGIN_STATE_TTL_SECONDS,
      linkPrincipalId ?? null,
    ],
  );
  return { ...checks, provider, redirectUrl, linkPrincipalId };
}

/**
 * Takes a login's state once: the row is deleted whatever happens next, so a replayed callback finds
 * nothing; an expired row or another provider's is not honoured.
 */
export async function consumeUpstreamLogin(
  db: Queryable,
  secretKey: Buffer,
  provider: string,
  state: string,
): Promise<PendingUpstreamLogin | undefined> {
  if (!state || state.length > 256) return undefined;
  const stateHash = sha256Hex(state);
  const r = await db.query<{
    provider: string;
    redirect_url: string;
    nonce: string;
    pkce_verifier: string;
    live: boolean;
    link_principal_id: string | null;
  }>(
    'DELETE FROM login_states WHERE state_hash = $1 RETURNING provider, redirect_url, nonce, pkce_verifier, expires_at > now() AS live, link_principal_id',
    [stateHash],
  );
  const row = r.rows[0];
  if (!row?.live || row.provider !== provider) return undefined;
  return {
    state,
    provider,
    redirectUrl: row.redirect_url,
    linkPrincipalId: row.link_principal_id ?? undefined,
    nonce: openSealedString(secretKey, row.nonce, context(stateHash, 'nonce')),
    codeVerifier: openSealedString(secretKey, row.pkce_verifier, context(stateHash, 'pkce')),
  };
}

export function upstreamCookie(state: string): string {
  return `${UPSTREAM_COOKIE}=${state}; Path=/; Max-Age=${LOGIN_STATE_TTL_SECONDS}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearedUpstreamCookie(): string {
  return `${UPSTREAM_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}
