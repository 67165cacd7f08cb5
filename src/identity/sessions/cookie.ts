/** The browser login session cookie, named by the contract. */
export const LOGIN_COOKIE = '__Host-svc_login';

/**
 * `__Host-` cookies must be Secure with Path=/ and no Domain. Browsers accept Secure cookies from
 * http://localhost (a secure context), so the same attributes work in development and tests.
 */
export function loginCookie(token: string, maxAgeSeconds: number): string {
  return `${LOGIN_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearedLoginCookie(): string {
  return `${LOGIN_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}
