import type { Client, KoaContextWithOIDC } from 'oidc-provider';

/**
 * oidc-provider's `clientBasedCORS`: which browser origins may call the token, revocation and userinfo endpoints for a
 * client. A public client (PKCE, no secret: the console, any single-page app) from the origins of its redirect URIs, and
 * userinfo for any client from those; a confidential client's token calls never come from a browser (its secret
 * would be there). This is the provider's own default, written out so that it is a decision rather than a warning.
 */
export function clientBasedCors(ctx: KoaContextWithOIDC, origin: string, client: Client): boolean {
  if (origin === 'null') return false;
  if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
  return (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin);
}
