import type { Grant } from 'oidc-provider';

/**
 * A first-party app's grant (no consent screen) for one authorization request: every requested scope is settled, either
 * granted (`grantable`: allowed to the app and held by the person) or refused. A refused scope counts as answered, so
 * the provider asks for no consent and `prompt=none` works (the console asks for every right's scope and gets those the
 * person holds). Refusals of an earlier request are dropped first: a right given since then is granted now.
 */
export function settleFirstPartyGrant(grant: Grant, requested: Iterable<string>, grantable: readonly string[]): void {
  const rejected = grant.rejected as { openid?: { scope?: string } } | undefined;
  if (rejected?.openid) delete rejected.openid.scope;
  if (grantable.length) grant.addOIDCScope(grantable.join(' '));
  const refused = [...new Set(requested)].filter((s) => !grantable.includes(s));
  if (refused.length) grant.rejectOIDCScope(refused.join(' '));
}
