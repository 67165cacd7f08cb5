import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { escapeHtml, page } from '../web/layout.ts';
import { html, pageLanguage } from '../web/respond.ts';
import { signInLink } from '../web/sign-in-link.ts';
import { signedIn, type SignedIn } from '../sessions/signed-in.ts';
import type { SignedInRule } from './rules.ts';

const people = new WeakMap<FastifyRequest, SignedIn>();

/** Who the browser is signed in as on a route that declares a `signed-in` rule; only ever asked on such routes. */
export function signedInAs(request: FastifyRequest): SignedIn {
  const who = people.get(request);
  if (!who) throw new Error(`route ${request.routeOptions.url} does not declare signed-in access`);
  return who;
}

/**
 * The `signed-in` check: a live login session of an active principal (`__Host-svc_login`). Signed out, the route's
 * refusal answers (rules.ts): the sign-in and back for a page, a 401 page for a form, 401 JSON for a script's fetch.
 * Same origin and the page's CSRF token are the handler's to check, once the form is read.
 */
export function signedInCheck(db: Database, accounts: PrincipalDirectory) {
  return async (rule: SignedInRule, request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const who = await signedIn(db, accounts, request);
    if (who) {
      people.set(request, who);
      return;
    }
    reply.header('cache-control', 'no-store');
    if (rule.refusal === 'sign-in') {
      reply.redirect(signInLink(rule.path), 303);
      return;
    }
    if (rule.refusal === 'json') {
      reply.code(401).send({ error: 'login_required', error_description: 'sign in first' });
      return;
    }
    const { lang, t } = pageLanguage(request, reply);
    html(
      reply,
      401,
      page({
        lang,
        title: t.errors.signedOutTitle,
        body: `<h1>${escapeHtml(t.errors.signedOutTitle)}</h1>\n<p>${escapeHtml(t.errors.signedOut)}</p>\n<p><a href="${escapeHtml(signInLink(rule.path))}">${escapeHtml(t.errors.signInAgain)}</a></p>`,
      }),
    );
  };
}
