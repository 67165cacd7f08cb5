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
import { listConsents, revokeConsent } from './store.ts';
import { connectedAppsPage, type ConnectedApp } from './page.ts';
import { htmlAnswers } from '../web/page-answers.ts';

export interface ConsentPageDeps {
  db: Database;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
}

const tags = ['sign-in'];
const Html = htmlAnswers(200, 303, 400, 401, 403, 404);
/** How many consents the page reads at once. */
const PAGE = 500;
const APPS: AccountPage = { path: '/account/apps', purpose: 'apps', name: 'the connected apps page' };

/**
 * The person's connected apps (`/account/apps`): the third-party apps they allowed on a consent page, and a button that
 * withdraws one (the consent is revoked with reason `user_initiated`, and the app's tokens, codes and grants for them).
 */
export async function registerConsentPages(app: App, deps: ConsentPageDeps): Promise<void> {
  const guard = new AccountGuard(deps);
  await app.register(async (plain) => {
    const scope = formScope(plain, {
      retry: (t) => t.errors.formUnreadApps,
    });
    connectedAppsPageRoute(scope, deps, guard);
    withdrawAppAccessRoute(scope, deps, guard);
  });
}

function connectedAppsPageRoute(scope: TypedScope, deps: ConsentPageDeps, guard: AccountGuard): void {
  scope.get(
    '/account/apps',
    {
      config: { access: signedInPage(APPS.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'connectedAppsPage',
        tags,
        summary:
          'The apps the signed-in person allowed, with a button to withdraw each (sends the browser to /signin first when signed out)',
        querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: Html,
      },
    },
    async (request, reply) => {
      const who = guard.page(request);
      const person = who.account;
      const apps: ConnectedApp[] = [];
      let after: readonly [string, string] | undefined;
      for (;;) {
        const rows = await listConsents(deps.db, person.id, { limit: PAGE, after });
        for (const c of rows)
          if (!c.revoked)
            apps.push({
              appId: c.app_id,
              name: c.app_name,
              scopes: c.scopes,
              grantedAt: c.granted_at,
              lastUsedAt: c.last_used_at,
            });
        if (rows.length < PAGE) break;
        after = rows.at(-1)!.position;
      }
      const loc = pageLanguage(request, reply);
      const notice = request.query.done === 'withdrawn' ? loc.t.apps.withdrawn : undefined;
      return html(
        reply,
        200,
        connectedAppsPage({ accountLabel: person.identifier, csrf: guard.csrf(who, APPS), apps, notice, loc }),
      );
    },
  );
}

function withdrawAppAccessRoute(scope: TypedScope, deps: ConsentPageDeps, guard: AccountGuard): void {
  scope.post(
    '/account/apps/:appId/withdraw',
    {
      config: { access: signedInForm(APPS.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'withdrawAppAccess',
        tags,
        summary: "Withdraw the signed-in person's consent to an app, and the app's tokens for them (CSRF field)",
        params: Type.Object({ appId: Type.String({ format: 'uuid' }) }),
        body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true }),
        response: Html,
      },
    },
    async (request, reply) => {
      const who = guard.form(request, reply, APPS);
      if (!who) return reply;
      if (!(await revokeConsent(deps.db, who.account.id, request.params.appId, 'user_initiated'))) {
        const { lang, t } = pageLanguage(request, reply);
        return html(reply, 404, errorPage(t.errors.nothingToWithdrawTitle, t.errors.nothingToWithdraw, lang));
      }
      return reply.code(303).header('cache-control', 'no-store').redirect('/account/apps?done=withdrawn', 303);
    },
  );
}
