import type { Client, Configuration, Grant, KoaContextWithOIDC } from 'oidc-provider';

/** A client's own lifetime setting (access_token_ttl, …: clients.ts), or the fallback when it has none. */
export function ttlOf(client: Client | undefined, key: string, fallback: number): number {
  const v = client?.[key];
  return typeof v === 'number' && v > 0 ? v : fallback;
}

/** How long a grant must still live to be reused: a full refresh-token lifetime and a code's. */
export function grantLifetimeNeeded(client: Client): number {
  return ttlOf(client, 'refresh_token_ttl', 604_800) + ttlOf(client, 'authorization_code_ttl', 600);
}

/** Every model's lifetime: the app's own settings where it has them, the contract's defaults otherwise. */
/** Seconds a device code and its user code live (RFC 8628 `expires_in`). */
export const DEVICE_CODE_TTL = 600;

export function lifetimes(loginSessionTtl: number): Configuration['ttl'] {
  return {
    AccessToken: (_ctx, _token, client) => ttlOf(client, 'access_token_ttl', 900),
    ClientCredentials: (_ctx, _token, client) => ttlOf(client, 'access_token_ttl', 900),
    AuthorizationCode: (_ctx, _code, client) => ttlOf(client, 'authorization_code_ttl', 600),
    // A rotated refresh token inherits what is left of its family's lifetime: rotation never extends it.
    RefreshToken: (ctx, _token, client) =>
      ctx?.oidc?.entities?.RotatedRefreshToken?.remainingTTL ?? ttlOf(client, 'refresh_token_ttl', 604_800),
    // The grant outlives every refresh token it can yield (a refresh token dies with its grant). The provider passes the
    // grant's client third, which its type declarations leave out.
    Grant: (_ctx: KoaContextWithOIDC, _grant: Grant, client?: Client) =>
      ttlOf(client, 'refresh_token_ttl', 604_800) + ttlOf(client, 'authorization_code_ttl', 600) + 3600,
    Session: () => loginSessionTtl,
    Interaction: () => 3600,
    // RFC 8628's device code: ten minutes to type the code, sign in and approve.
    DeviceCode: () => DEVICE_CODE_TTL,
    IdToken: () => 3600,
  };
}
