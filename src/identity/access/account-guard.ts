import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CsrfTokens } from '../web/csrf.ts';
import { errorPage } from '../web/layout.ts';
import { html, pageLanguage, sameOrigin } from '../web/respond.ts';
import { signedInAs } from './signed-in.ts';
import { csrfBinding, type SignedIn } from '../sessions/signed-in.ts';

export interface AccountGuardDeps {
  csrf: CsrfTokens;
  issuer: string;
}

/** One signed-in page: where it lives, how its forms' CSRF tokens are bound, and how refusals name it. */
export interface AccountPage {
  path: string;
  /** The CSRF binding's prefix: a token from one page's forms does not work on another's. */
  purpose: string;
  /** "the connected apps page": what a refused English form says it was not sent from. */
  name: string;
}

/**
 * The signed-in person's pages (password, sign-in security, sessions, linked accounts, connected apps, agents) all
 * start alike. Their routes declare signed-in access (access/rules.ts), so the access check has already answered a
 * browser that is signed out: the sign-in and back for a page, a 401 page for a form. A form from another origin or
 * without this login session's CSRF token is refused here (403), once its body is read.
 */
export class AccountGuard {
  private readonly deps: AccountGuardDeps;
  constructor(deps: AccountGuardDeps) {
    this.deps = deps;
  }

  /** A page: the person the browser is signed in as. */
  page(request: FastifyRequest): SignedIn {
    return signedInAs(request);
  }

  /** A posted form: the person, or undefined after answering 403 (cross-site, bad CSRF token). */
  form(
    request: FastifyRequest<{ Body: { csrf?: string | undefined } }>,
    reply: FastifyReply,
    at: AccountPage,
  ): SignedIn | undefined {
    const who = signedInAs(request);
    if (!sameOrigin(request, this.deps.issuer) || !this.verify(who, at, request.body?.csrf)) {
      const { lang, t } = pageLanguage(request, reply);
      html(reply, 403, errorPage(t.errors.refused, t.errors.expiredAccountForm(at.name), lang));
      return undefined;
    }
    return who;
  }

  /** The CSRF token of the page's forms for this login session. */
  csrf(who: SignedIn, at: AccountPage): string {
    return this.deps.csrf.issue(csrfBinding(at.purpose, who));
  }

  verify(who: SignedIn, at: AccountPage, token: unknown): boolean {
    return this.deps.csrf.verify(csrfBinding(at.purpose, who), token);
  }
}
