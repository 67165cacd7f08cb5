import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import { formScope } from '../web/respond.ts';
import { PUBLIC } from '../access/rules.ts';
import { providerButtons } from './buttons.ts';
import type { Messages } from '../web/i18n/en.ts';
import { socialCallback, startSocialSignIn, upstreamCsrfBinding, type SocialDeps } from './sign-in.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const tags = ['sign-in'];
const Html = htmlAnswers(200, 303, 400, 403, 404);

/**
 * Social sign-in from the sign-in page: `POST /interaction/:uid/upstream/:provider` (a button) sends
 * the browser to the provider with a fresh state, PKCE challenge and nonce; the provider sends it back
 * to `GET /upstream/:provider/callback`, which consumes the state once, checks the code, PKCE and (for
 * OpenID issuers) the ID token and its nonce, finds or makes the principal, starts the login session
 * and finishes the interaction it came from.
 */
export async function registerSocialLogin(app: App, deps: SocialDeps): Promise<void> {
  await app.register(async (plain) => {
    // A page for every refused request: these routes answer HTML, so a validation error in the service's JSON shape was
    // sent as "[object Object]".
    const scope = formScope(plain, {
      retry: (t) => t.errors.socialUnread,
    });
    startSocialSignInRoute(scope, deps);
    socialSignInCallbackRoute(scope, deps);
  });
}

function startSocialSignInRoute(scope: TypedScope, deps: SocialDeps): void {
  scope.post(
    '/interaction/:uid/upstream/:provider',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'startSocialSignIn',
        tags,
        summary:
          'A "Continue with …" button: off to the provider (303), with state, PKCE and nonce kept as a LoginState',
        params: Type.Object({
          uid: Type.String({ minLength: 1, maxLength: 100 }),
          provider: Type.String({ minLength: 1, maxLength: 40 }),
        }),
        body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true }),
        response: Html,
      },
    },
    async (request, reply) => {
      await startSocialSignIn(deps, request, reply);
      return reply;
    },
  );
}

function socialSignInCallbackRoute(scope: TypedScope, deps: SocialDeps): void {
  scope.get(
    '/upstream/:provider/callback',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'socialSignInCallback',
        tags,
        summary:
          "The provider's redirect back (its registered redirect URI): state used once, code and nonce checked, then back to the authorization request (or, for a link started on /account/linked, linked to the signed-in person)",
        params: Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) }),
        querystring: Type.Object(
          {
            state: Type.Optional(Type.String({ maxLength: 512 })),
            code: Type.Optional(Type.String({ maxLength: 2048 })),
            error: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: true },
        ),
        response: Html,
      },
    },
    async (request, reply) => {
      await socialCallback(deps, request, reply);
      return reply;
    },
  );
}

/** The sign-in page's buttons for the configured providers (nothing when none is). */
export function signInButtons(
  deps: Pick<SocialDeps, 'providers' | 'csrf'>,
): (d: { uid: string; jti: string }, t: Messages) => string {
  const list = [...deps.providers.entries()].map(([id, p]) => ({ id, name: p.name }));
  return (d, t) => providerButtons(d.uid, deps.csrf.issue(upstreamCsrfBinding(d.jti)), list, t.social);
}
