import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { CsrfTokens } from '../pages/csrf.ts';
import { errorPage, escapeHtml, page } from '../pages/layout.ts';
import { html, sameOrigin } from '../pages/respond.ts';
import { signInLink } from './html.ts';
import { csrfBinding, signedIn, type SignedIn } from './session.ts';

export interface AccountGuardDeps {
  db: Database;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
}

/** One signed-in page: where it lives, how its forms' CSRF tokens are bound, and how refusals name it. */
export interface AccountPage {
  path: string;
  /** The CSRF binding's prefix: a token from one page's forms does not work on another's. */
  purpose: string;
  /** "the connected apps page": what a refused form says it was not sent from. */
  name: string;
}

/**
 * The signed-in person's pages (password, sign-in security, sessions, linked accounts, connected apps, agents) all
 * start alike: a page opened signed out goes through the one sign-in and back; a form posted signed out gets a 401
 * page with that link (re-posting after signing in would need a fresh CSRF token anyway); a form from another origin
 * or without this login session's CSRF token is refused (403).
 */
export class AccountGuard {
  private readonly deps: AccountGuardDeps;
  constructor(deps: AccountGuardDeps) {
    this.deps = deps;
  }

  /** A page: the person, or undefined after sending the browser to sign in. */
  async page(
    request: FastifyRequest,
    reply: FastifyReply,
    at: AccountPage,
    returnTo = at.path,
  ): Promise<SignedIn | undefined> {
    const who = await signedIn(this.deps.db, this.deps.accounts, request);
    if (!who) reply.header('cache-control', 'no-store').redirect(signInLink(returnTo), 303);
    return who;
  }

  /** A posted form: the person, or undefined after answering 401 (signed out) or 403 (cross-site, bad CSRF token). */
  async form(
    request: FastifyRequest<{ Body: { csrf?: string | undefined } }>,
    reply: FastifyReply,
    at: AccountPage,
  ): Promise<SignedIn | undefined> {
    const who = await signedIn(this.deps.db, this.deps.accounts, request);
    if (!who) {
      html(
        reply,
        401,
        page({
          title: 'Signed out',
          body: `<h1>Signed out</h1>\n<p>Your session has ended, so nothing was changed.</p>\n<p><a href="${escapeHtml(signInLink(at.path))}">Sign in again</a></p>`,
        }),
      );
      return undefined;
    }
    if (!sameOrigin(request, this.deps.issuer) || !this.verify(who, at, request.body?.csrf)) {
      html(
        reply,
        403,
        errorPage(
          'Request refused',
          `This form has expired or was not sent from ${at.name}. Go back, reload the page and try again.`,
        ),
      );
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
