import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken, safeEqual } from '../../kit/crypto.ts';
import { readCookie } from './cookies.ts';
import { errorPage } from './layout.ts';
import { sameOrigin, staticHtml } from './respond.ts';
import { LANGUAGES, type Localized } from './i18n/negotiate.ts';

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

  /**
   * The token of a form posted from a link's page (an invitation, a choose-your-password link), when the form came from
   * that page in this browser: same origin, a token, this browser's CSRF value for it (`purpose`). Undefined once
   * refused (403 saying the form was not sent from `page`, in English; `retry` says what to do, in `loc`'s language).
   */
  linkForm(
    request: FastifyRequest<{ Body: { token?: string | undefined; csrf?: string | undefined } }>,
    reply: FastifyReply,
    issuer: string,
    purpose: (token: string) => string,
    refusal: { page: string; retry: string; loc?: Localized | undefined },
  ): string | undefined {
    const token = request.body.token ?? '';
    if (sameOrigin(request, issuer) && token && this.verify(request, purpose(token), request.body.csrf)) return token;
    const { lang, t } = refusal.loc ?? { lang: 'en', t: LANGUAGES.en };
    staticHtml(reply, 403, errorPage(t.errors.refused, `${t.errors.linkForm(refusal.page)} ${refusal.retry}`, lang));
    return undefined;
  }
}
