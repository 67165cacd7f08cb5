const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A random value for `state` or a PKCE verifier: 32 random bytes, base64url. */
export function randomValue(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The PKCE challenge of a verifier (S256, RFC 7636): base64url of its SHA-256. */
export async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}
