import { RefusedDestinationError, type AddressPolicy } from './address-policy.ts';

/**
 * A `fetch` for requests to a URL a caller named (an enterprise SSO connector's issuer, its token and key endpoints):
 * each request's host is checked by the policy before it is sent, and redirects are not followed (a redirect to an
 * internal address would go around the check). The checked address is not pinned for the connection, unlike
 * guardedPost: a name that answers a public address to the check and an internal one a moment later still gets
 * through (DNS rebinding); documented as not done yet.
 */
export function guardedFetch(policy: AddressPolicy) {
  return async (input: string, init: Omit<RequestInit, 'body'> & { body?: unknown } = {}): Promise<Response> => {
    const url = new URL(input);
    policy.checkUrl(url);
    await policy.resolve(url.hostname);
    const answer = await fetch(url, { ...init, body: init.body as BodyInit | null | undefined, redirect: 'manual' });
    if (answer.status >= 300 && answer.status < 400)
      throw new RefusedDestinationError(url.hostname, `${url.origin} answered a redirect, which is not followed`);
    return answer;
  };
}
