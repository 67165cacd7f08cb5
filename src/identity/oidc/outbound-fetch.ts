import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { guardedPost } from '../../kit/outbound/post.ts';

const NO_BODY = new Set([204, 205, 304]);

/**
 * The provider's `fetch`: the only requests it makes here are POSTs of logout tokens (back-channel logout), sent through
 * the kit's guarded POST (address checked and pinned, no redirects, one time limit) instead of the provider's own
 * fetch, so IDENTITY_WEBHOOK_ALLOW_HOSTS decides for them as for webhooks. Anything else is refused: the provider's
 * other outgoing requests (jwks_uri, sector identifiers, client metadata documents) belong to features not enabled.
 */
export function guardedProviderFetch(policy: AddressPolicy) {
  return async (input: string | URL | Request, options: RequestInit = {}): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    if ((options.method ?? 'GET').toUpperCase() !== 'POST')
      throw new Error('the identity service makes no outgoing request but a logout token POST');
    const headers: Record<string, string> = {};
    new Headers(options.headers).forEach((value, name) => {
      if (name !== 'user-agent') headers[name] = value;
    });
    const answer = await guardedPost({ url, headers, body: String(options.body ?? '') }, policy, {
      timeoutMs: 5_000,
      userAgent: 'platform-identity-logout/1',
    });
    return new Response(NO_BODY.has(answer.status) ? null : answer.text, { status: answer.status });
  };
}
