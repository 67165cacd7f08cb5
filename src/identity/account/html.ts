import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken, safeEqual } from '../../kit/crypto.ts';
import { readCookie } from '../sessions/cookie.ts';
import { html as pageHtml } from '../pages/respond.ts';

export { sameOrigin } from '../pages/respond.ts';

/** The account and invitation pages carry no script and post only back here: the stricter CSP. */
export function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return pageHtml(reply, status, body, 'static');
}

/** The double-submit cookie of the account pages: random per browser, read only by this origin. */
export const FORM_COOKIE = '__Host-svc_form';

/**
 * CSRF for pages outside an authorization request (no interaction to bind to): the token is an HMAC of the form's purpose
 * and a random per-browser cookie, so another site can neither read it nor make one that matches the victim's cookie.
 */
export class FormGuard {
  private readonly key: Buffer;
  constructor(secretKey: Buffer) {
    this.key = createHmac('sha256', secretKey).update('identity.account-forms').digest();
  }
  private mac(purpose: string, browser: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\n${browser}`).digest('base64url');
  }
  /** A token for a form on this page; sets the browser's cookie first when it has none. */
  issue(request: FastifyRequest, reply: FastifyReply, purpose: string): string {
    let browser = readCookie(request.headers.cookie, FORM_COOKIE);
    if (!browser || browser.length > 64) {
      browser = randomToken(24);
      reply.header('set-cookie', `${FORM_COOKIE}=${browser}; Path=/; HttpOnly; Secure; SameSite=Lax`);
    }
    return this.mac(purpose, browser);
  }
  verify(request: FastifyRequest, purpose: string, token: unknown): boolean {
    const browser = readCookie(request.headers.cookie, FORM_COOKIE);
    return (
      !!browser &&
      browser.length <= 64 &&
      typeof token === 'string' &&
      token.length < 100 &&
      safeEqual(this.mac(purpose, browser), token)
    );
  }
}

/** Where the standalone sign-in may send a browser back to: the service's own account, agents and invitation pages only. */
const RETURN_PREFIXES = ['/invites/accept', '/account/', '/agents'];
export const DEFAULT_RETURN = '/account/password';

export function safeReturn(value: unknown, issuer: string): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.length > 1000)
    return DEFAULT_RETURN;
  try {
    const base = new URL(issuer);
    const u = new URL(value, base);
    if (u.origin !== base.origin || !RETURN_PREFIXES.some((p) => u.pathname === p || u.pathname.startsWith(p)))
      return DEFAULT_RETURN;
    return u.pathname + u.search;
  } catch {
    return DEFAULT_RETURN;
  }
}

/**
 * The sign-in that comes back to `returnTo`; `loginHint` fills in the email address. A browser already signed in (as
 * the hinted person, when there is a hint) goes straight to `returnTo`, unless `again`: "sign in as someone else", or
 * a fresh sign-in to confirm it is you, which signs the browser out first.
 */
export function signInLink(returnTo: string, loginHint?: string, again = false): string {
  return `/signin?return_to=${encodeURIComponent(returnTo)}${loginHint ? `&login_hint=${encodeURIComponent(loginHint)}` : ''}${again ? '&prompt=login' : ''}`;
}
