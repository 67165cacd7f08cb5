import { errors, type TokenEndpointGrantContext } from 'oidc-provider';
import type { OidcProvider } from './provider.ts';
import { TOKEN_EXCHANGE } from './protocol.ts';

/** A grant type a feature adds to the token endpoint, as oidc-provider's registerGrantType takes it. */
export interface GrantPlugin {
  type: string;
  handler(ctx: TokenEndpointGrantContext<any>): Promise<void>;
  /** The parameters the provider keeps for the handler; `duplicates`, those it may repeat. */
  params: readonly string[];
  duplicates?: readonly string[] | undefined;
}

/** Answers a token exchange whose subject token is of one type; `subjectToken` is the request's subject_token. */
export type SubjectHandler = (
  ctx: TokenEndpointGrantContext<{ subject_token?: string; subject_token_type?: string }>,
  subjectToken: string,
) => Promise<void>;

/**
 * RFC 8693 token exchange, handed to the feature that knows its subject token's type: an API key (credentials), a
 * person's access token with an actor token (delegation). `params` are every parameter the handlers read besides the
 * subject token and its type.
 */
export function tokenExchangeGrant(
  bySubjectType: ReadonlyMap<string, SubjectHandler>,
  params: readonly string[],
): GrantPlugin {
  const types = [...bySubjectType.keys()];
  return {
    type: TOKEN_EXCHANGE,
    handler: async (ctx: TokenEndpointGrantContext<{ subject_token?: string; subject_token_type?: string }>) => {
      const { subject_token: subjectToken, subject_token_type: subjectTokenType } = ctx.oidc.params;
      if (!subjectToken) throw new errors.InvalidRequest('missing required parameter subject_token');
      const handler = subjectTokenType === undefined ? undefined : bySubjectType.get(subjectTokenType);
      if (!handler) throw new errors.InvalidRequest(`subject_token_type must be ${types.join(' or ')}`);
      await handler(ctx, subjectToken);
    },
    params: ['subject_token', 'subject_token_type', ...params],
    duplicates: ['audience'],
  };
}

export function registerGrants(provider: OidcProvider, grants: readonly GrantPlugin[]): void {
  for (const g of grants) provider.registerGrantType(g.type, g.handler, g.params, g.duplicates);
}
