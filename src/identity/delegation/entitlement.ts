import type { Queryable } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { chainUnrevoked } from '../oidc/delegated-tokens.ts';

/** The delegation a token carries in its `extra` (set at the exchange), or undefined for an ordinary token. */
export function delegationOf(token: {
  extra?: Record<string, unknown> | undefined;
}): { chain: string[]; parentTokenId: string | undefined } | undefined {
  const chain = token.extra?.delegation_chain;
  if (!Array.isArray(chain) || chain.length < 2) return undefined;
  const parent = token.extra?.parent_token_id;
  return { chain: chain.map(String), parentTokenId: typeof parent === 'string' ? parent : undefined };
}

/**
 * Whether a delegated token still counts: every principal of its chain (the person and each agent) is active, and
 * neither it nor any token it was delegated from is revoked. The revocation cascade already marks the descendants;
 * reading the ancestors as well closes the moment between an exchange and its parent's revocation. Ordinary tokens pass.
 */
export async function delegationLive(
  db: Queryable,
  accounts: PrincipalDirectory,
  token: { jti?: string | undefined; extra?: Record<string, unknown> | undefined },
): Promise<boolean> {
  const d = delegationOf(token);
  if (!d) return true;
  for (const id of d.chain) if (!(await accounts.find(id))?.active) return false;
  return token.jti ? chainUnrevoked(db, token.jti) : false;
}
