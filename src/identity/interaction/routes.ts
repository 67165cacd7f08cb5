import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import { formScope } from '../web/respond.ts';
import { PUBLIC } from '../access/rules.ts';
import { interactionPages, type InteractionPages, type PageDeps } from './pages.ts';
import { interactionPage, submitSignIn } from './sign-in.ts';
import { submitConsent } from './consent-step.ts';
import { signOut, signOutForm } from './sign-out.ts';
import { FormBody, Html, Params, tags } from './schemas.ts';

/**
 * The browser pages of the interaction: sign-in, consent, and the service's own sign-out; the second step's and the
 * passkeys' routes (src/identity/mfa) join them, finishing the interaction the same way (pages.ts).
 */
export async function registerInteractionPages(app: App, deps: PageDeps): Promise<void> {
  await app.register(async (plain) => {
    const scope = formScope(plain, {
      retry: (t) => t.errors.formUnreadApp,
    });
    const pages = interactionPages(deps);
    deps.secondFactor?.registerRoutes(plain, pages);
    deps.moreRoutes?.(plain, pages);
    interactionRoutes(scope, deps, pages);
    signOutRoutes(scope, deps);
  });
}

function interactionRoutes(scope: TypedScope, deps: PageDeps, pages: InteractionPages): void {
  scope.get(
    '/interaction/:uid',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'interactionPage',
        tags,
        summary: 'The sign-in or consent page of an authorization request',
        params: Params,
        response: Html,
      },
    },
    async (request, reply) => {
      await interactionPage(deps, pages, request, reply, request.params.uid);
      return reply;
    },
  );
  scope.post(
    '/interaction/:uid/login',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'submitSignIn',
        tags,
        summary: 'The sign-in form (email, password, CSRF field)',
        params: Params,
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await submitSignIn(deps, pages, request, reply, request.params.uid);
      return reply;
    },
  );
  scope.post(
    '/interaction/:uid/consent',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'submitConsent',
        tags,
        summary: 'The consent form (allow or deny)',
        params: Params,
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await submitConsent(deps, pages, request, reply, request.params.uid);
      return reply;
    },
  );
}

function signOutRoutes(scope: TypedScope, deps: PageDeps): void {
  scope.get(
    '/signout',
    {
      config: { access: PUBLIC },
      schema: { operationId: 'signOutPage', tags, summary: 'The sign-out page', response: Html },
    },
    async (request, reply) => {
      await signOutForm(deps, request, reply);
      return reply;
    },
  );
  scope.post(
    '/signout',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'signOut',
        tags,
        summary: 'Sign out: ends the browser login session',
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await signOut(deps, request, reply);
      return reply;
    },
  );
}
