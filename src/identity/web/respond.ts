import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';
import { errorPage } from './layout.ts';
import { LANGUAGES, localized, type Localized } from './i18n/negotiate.ts';
import type { Messages } from './i18n/en.ts';

const ENGLISH: Localized = { lang: 'en', t: LANGUAGES.en };

/**
 * The sign-in, second-factor and security pages: scripts only from this origin (the passkey forms'
 * /assets/*.js); images as data: URLs (the TOTP QR code) and from https (an app's or organization's logo, apps/logo.ts;
 * http on localhost for development), which loads no script. No form-action: browsers apply it to the
 * redirects after a post, and those end at the app's redirect URI.
 */
const INTERACTIVE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; img-src data: https: http://localhost:* http://127.0.0.1:*; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";
/** Pages without script whose forms post only back here (account and invitation pages). */
const STATIC_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** An HTML page answer of identity's pages: never cached, never framed, the page kind's CSP. */
export function html(
  reply: FastifyReply,
  status: number,
  body: string,
  kind: 'interactive' | 'static' = 'interactive',
): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', kind === 'static' ? STATIC_CSP : INTERACTIVE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .send(body);
}

/** The account and invitation pages carry no script and post only back here: the stricter CSP. */
export function staticHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return html(reply, status, body, 'static');
}

/** Cross-site form posts are refused: a browser's Origin must be the issuer's (a missing Origin is left to the CSRF token). */
export function sameOrigin(request: FastifyRequest, issuer: string): boolean {
  const origin = request.headers.origin;
  return origin === undefined || origin === new URL(issuer).origin;
}

/**
 * 403 for a form not sent from its page (another site, or no CSRF token of this page): `what` names the page, in
 * English; `loc` is the page's language (pageLanguage).
 */
export function refusedForm(reply: FastifyReply, what: string, loc: Localized = ENGLISH): FastifyReply {
  return html(reply, 403, errorPage(loc.t.errors.refused, loc.t.errors.expiredForm(what), loc.lang));
}

/** 403 for a form posted from another site (its Origin is not the issuer's). */
export function fromAnotherSite(reply: FastifyReply, loc: Localized = ENGLISH): FastifyReply {
  return html(reply, 403, errorPage(loc.t.errors.refused, loc.t.errors.anotherSite, loc.lang));
}

export interface FormScopeOptions {
  /** What the page of a refused form tells the person to do, in the request's language. */
  retry: (t: Messages) => string;
  bodyLimit?: number;
  /** Show an HttpError's own message instead of `retry` (the scope's errors are written for people). */
  ownMessages?: boolean;
}

/**
 * A plugin scope for browser forms: urlencoded bodies, and a page for every refused request, because the
 * service's JSON error body would be mangled by these routes' HTML response schemas (sent as "[object Object]").
 * Failures of the service itself go on to the app's handler.
 */
export function formScope(plain: FastifyInstance, options: FormScopeOptions) {
  const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
  // Not awaited, and not async: a Fastify instance is thenable, so awaiting it (or returning it from an async
  // function) waits for the whole plugin tree instead of handing the scope back. Fastify loads it in order anyway.
  void scope.register(formbody, { bodyLimit: options.bodyLimit ?? 16 * 1024 });
  scope.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    const status = err instanceof HttpError ? err.statusCode : err.validation ? 400 : (err.statusCode ?? 500);
    if (status < 400 || status >= 500) throw err;
    request.log.info({ status, err: err.message }, 'page request refused');
    const { lang, t } = pageLanguage(request, reply);
    if (status === 413) return html(reply, status, errorPage(t.errors.tooLarge, t.errors.tooLargeText, lang));
    const own = options.ownMessages && err instanceof HttpError ? err.message : undefined;
    return html(reply, status, errorPage(t.errors.refused, own ?? options.retry(t), lang));
  });
  return scope;
}

/**
 * The language of a translated page (web/i18n/), chosen from the request's Accept-Language; the answer says it varies by
 * that header, so a shared cache never hands one person's language to another.
 */
export function pageLanguage(request: FastifyRequest, reply: FastifyReply): Localized {
  reply.header('vary', 'Accept-Language');
  return localized(request.headers['accept-language']);
}
