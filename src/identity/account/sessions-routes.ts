import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { formScope, html, pageLanguage } from '../web/respond.ts';
import { errorPage } from '../web/layout.ts';
import { AccountGuard, type AccountPage } from '../access/account-guard.ts';
import { signedInForm, signedInPage, SIGNED_IN_SECURITY } from '../access/rules.ts';
import { endOtherSession, endOtherSessions, listLoginSessions } from '../sessions/list.ts';
import { sessionsPage } from './sessions-page.ts';
import { htmlAnswers, noticeOf } from '../web/page-answers.ts';

export interface SessionPageDeps {
  db: Database;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
  /** Provider ids and the names the sign-in buttons show ("GitHub"), to say how a session was signed in. */
  providerNames: ReadonlyMap<string, string>;
}

const tags = ['sign-in'];
const Html = htmlAnswers(200, 303, 400, 401, 403, 404);
const Form = Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true });
const SESSIONS: AccountPage = { path: '/account/sessions', purpose: 'sessions', name: 'the sessions page' };
/** The notice after a sign-out, by the `done` query parameter (a key of the catalogue's `errors`). */
const NOTICES = { ended: 'sessionEnded', others: 'othersEnded', none: 'noOthers' } as const;
const notice = noticeOf(NOTICES);

/**
 * The person's sessions page (`/account/sessions`): their live login sessions (when, from where, which browser, with a
 * second step or not), this browser's marked, and buttons that sign the others out, one or all.
 */
export async function registerSessionPages(app: App, deps: SessionPageDeps): Promise<void> {
  const guard = new AccountGuard(deps);
  await app.register(async (plain) => {
    const scope = formScope(plain, {
      retry: (t) => t.errors.formUnreadSessions,
    });
    sessionsPageRoute(scope, deps, guard);
    endSessionRoute(scope, deps, guard);
    endOtherSessionsRoute(scope, deps, guard);
  });
}

function sessionsPageRoute(scope: TypedScope, deps: SessionPageDeps, guard: AccountGuard): void {
  scope.get(
    '/account/sessions',
    {
      config: { access: signedInPage(SESSIONS.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'sessionsPage',
        tags,
        summary:
          "The signed-in person's live sessions, with a button to sign out each other one (sends the browser to /signin first when signed out)",
        querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: Html,
      },
    },
    async (request, reply) => {
      const who = guard.page(request);
      const sessions = await listLoginSessions(deps.db, who.account.id);
      const loc = pageLanguage(request, reply);
      const done = notice(request.query.done);
      return html(
        reply,
        200,
        sessionsPage({
          accountLabel: who.account.identifier,
          csrf: guard.csrf(who, SESSIONS),
          currentId: who.session.id,
          sessions,
          providerNames: deps.providerNames,
          notice: done && loc.t.errors[done],
          loc,
        }),
      );
    },
  );
}

function endSessionRoute(scope: TypedScope, deps: SessionPageDeps, guard: AccountGuard): void {
  scope.post(
    '/account/sessions/:sessionId/end',
    {
      config: { access: signedInForm(SESSIONS.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'endSession',
        tags,
        summary: "Sign out one of the person's other sessions: its cookie stops working (CSRF field)",
        params: Type.Object({ sessionId: Type.String({ format: 'uuid' }) }),
        body: Form,
        response: Html,
      },
    },
    async (request, reply) => {
      const who = guard.form(request, reply, SESSIONS);
      if (!who) return reply;
      if (request.params.sessionId === who.session.id) {
        const { lang, t } = pageLanguage(request, reply);
        return html(reply, 400, errorPage(t.errors.useSignOutTitle, t.errors.useSignOut, lang));
      }
      if (!(await endOtherSession(deps.db, who.account.id, request.params.sessionId, who.session.id))) {
        const { lang, t } = pageLanguage(request, reply);
        return html(reply, 404, errorPage(t.errors.sessionNotFoundTitle, t.errors.sessionNotFound, lang));
      }
      return reply.header('cache-control', 'no-store').redirect('/account/sessions?done=ended', 303);
    },
  );
}

function endOtherSessionsRoute(scope: TypedScope, deps: SessionPageDeps, guard: AccountGuard): void {
  scope.post(
    '/account/sessions/end-others',
    {
      config: { access: signedInForm(SESSIONS.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'endOtherSessions',
        tags,
        summary: "Sign out every session of the person but this browser's (CSRF field)",
        body: Form,
        response: Html,
      },
    },
    async (request, reply) => {
      const who = guard.form(request, reply, SESSIONS);
      if (!who) return reply;
      const ended = await endOtherSessions(deps.db, who.account.id, who.session.id);
      return reply
        .header('cache-control', 'no-store')
        .redirect(`/account/sessions?done=${ended ? 'others' : 'none'}`, 303);
    },
  );
}
