import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import { formScope, pageLanguage } from '../web/respond.ts';
import { AccountGuard } from '../access/account-guard.ts';
import { signedInForm, signedInPage, SIGNED_IN_SECURITY } from '../access/rules.ts';
import { LINKED, overview, startLinking, unlink, type LinkedAccountDeps } from './linking.ts';
import { htmlAnswers, noticeOf } from '../web/page-answers.ts';

const tags = ['sign-in'];
const Html = htmlAnswers(200, 303, 400, 401, 403, 404, 409);
const Form = Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true });
/** The notice after a link or an unlink, by the `done` query parameter (a key of the catalogue's `linked`). */
const NOTICES = { linked: 'linkedNotice', already: 'alreadyNotice', unlinked: 'unlinkedNotice' } as const;
const notice = noticeOf(NOTICES);

/**
 * The linked accounts page (`/account/linked`): the person's social accounts, a "Link <provider>" button per configured
 * provider (the provider's own sign-in, then back through its one registered callback, `finishLinking`), and Unlink.
 */
export async function registerLinkedAccounts(app: App, deps: LinkedAccountDeps): Promise<void> {
  const guard = new AccountGuard(deps);
  await app.register(async (plain) => {
    const scope = formScope(plain, {
      retry: (t) => t.errors.formUnreadLinked,
    });
    linkedAccountsPageRoute(scope, deps, guard);
    linkRoute(scope, deps, guard);
    unlinkRoute(scope, deps, guard);
  });
}

function linkedAccountsPageRoute(scope: TypedScope, deps: LinkedAccountDeps, guard: AccountGuard): void {
  scope.get(
    '/account/linked',
    {
      config: { access: signedInPage(LINKED.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'linkedAccountsPage',
        tags,
        summary:
          "The signed-in person's linked social accounts, with Link and Unlink buttons (sends the browser to /signin first when signed out)",
        querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: Html,
      },
    },
    async (request, reply) => {
      const done = notice(request.query.done);
      const { t } = pageLanguage(request, reply);
      await overview(deps, guard, reply, guard.page(request), 200, { notice: done && t.linked[done] });
      return reply;
    },
  );
}

function linkRoute(scope: TypedScope, deps: LinkedAccountDeps, guard: AccountGuard): void {
  scope.post(
    '/account/linked/:provider/link',
    {
      config: { access: signedInForm(LINKED.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'linkSocialAccount',
        tags,
        summary: "Link a social account: off to the provider's sign-in (303), back through its callback (CSRF field)",
        params: Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) }),
        body: Form,
        response: Html,
      },
    },
    async (request, reply) => {
      await startLinking(deps, guard, request, reply);
      return reply;
    },
  );
}

function unlinkRoute(scope: TypedScope, deps: LinkedAccountDeps, guard: AccountGuard): void {
  scope.post(
    '/account/linked/:identityId/unlink',
    {
      config: { access: signedInForm(LINKED.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'unlinkSocialAccount',
        tags,
        summary: "Unlink one of the person's social accounts, unless it is their last way to sign in (CSRF field)",
        params: Type.Object({ identityId: Type.String({ format: 'uuid' }) }),
        body: Form,
        response: Html,
      },
    },
    async (request, reply) => {
      await unlink(deps, guard, request, reply);
      return reply;
    },
  );
}
