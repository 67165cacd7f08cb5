import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import type { Queryable } from '../../kit/db.ts';
import type { LoginChecks } from './provider.ts';

export const STATE_COOKIE = '__Host-dashboard_login';
export const STATE_TTL_SECONDS = 600;

export interface PendingLogin extends LoginChecks {
  provider: string;
  redirect: string | null;
  tenantSlug: string | null;
}

/** A new login: its state (the cookie's value and the `state` parameter), PKCE verifier and nonce, kept by hash for 10 minutes. */
export async function beginLogin(
  db: Queryable,
  provider: string,
  redirect: string | null,
  tenantSlug: string | null,
): Promise<PendingLogin> {
  const checks = { state: randomToken(32), codeVerifier: randomToken(48), nonce: randomToken(24) };
  await db.query(
    `INSERT INTO login_states (id_hash, provider, code_verifier, nonce, redirect, tenant_slug, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
    [sha256Hex(checks.state), provider, checks.codeVerifier, checks.nonce, redirect, tenantSlug, STATE_TTL_SECONDS],
  );
  return { ...checks, provider, redirect, tenantSlug };
}

/** Consumes a login's state once: a second callback with the same state, an expired one or another provider's finds nothing. */
export async function consumeLogin(db: Queryable, provider: string, state: string): Promise<PendingLogin | undefined> {
  const { rows } = await db.query<{
    code_verifier: string;
    nonce: string;
    redirect: string | null;
    tenant_slug: string | null;
  }>(
    `UPDATE login_states SET used_at = now()
      WHERE id_hash = $1 AND provider = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING code_verifier, nonce, redirect, tenant_slug`,
    [sha256Hex(state), provider],
  );
  const r = rows[0];
  return r
    ? {
        state,
        codeVerifier: r.code_verifier,
        nonce: r.nonce,
        provider,
        redirect: r.redirect,
        tenantSlug: r.tenant_slug,
      }
    : undefined;
}

/** Document 1's login state cookie: HttpOnly, Secure, SameSite=Lax, Max-Age 600. */
export function stateCookie(value: string): string {
  return `${STATE_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${STATE_TTL_SECONDS}`;
}

export function clearedStateCookie(): string {
  return `${STATE_COOKIE}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;
}

export function readStateCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === STATE_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}
