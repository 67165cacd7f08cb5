import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { LoginFailed } from '../../kit/upstream-login/provider.ts';
import { presentToProvider, type ProviderHolder } from '../oidc/mount.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { startLoginSession } from '../sessions/store.ts';
import { loginCookie } from '../sessions/cookie.ts';
import { readCookie } from '../web/cookies.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { escapeHtml, page } from '../web/layout.ts';
import { formScope, html, sameOrigin } from '../web/respond.ts';
import { callbackUrl, type SocialProvider } from './registry.ts';
import {
  beginUpstreamLogin,
  clearedUpstreamCookie,
  consumeUpstreamLogin,
  UPSTREAM_COOKIE,
  upstreamCookie,
} from './state.ts';
import { resolvePrincipal, SignInRefused } from './link.ts';
import { providerButtons } from './buttons.ts';
import { finishLinking } from './account-routes.ts';
import type { SecondFactor } from '../mfa/interaction.ts';
import { PUBLIC } from '../access/rules.ts';

export interface SocialDeps {
  db: Database;
  secretKey: Buffer;
  holder: ProviderHolder;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
  loginSessionTtl: number;
  providers: Map<string, SocialProvider>;
  signup: 'create' | 'refuse';
  /** The same second step a password sign-in has; without it a social sign-in finishes at once. */
  secondFactor?: SecondFactor;
}

const tags = ['sign-in'];
const Html = { 200: Type.String(), 303: Type.Null(), 400: Type.String(), 403: Type.String(), 404: Type.String() };
const INTERACTION_PATH = /^\/interaction\/[A-Za-z0-9_-]{1,100}$/;

/** The CSRF binding of the provider buttons on the sign-in page of interaction `jti`. */
export const upstreamCsrfBinding = (jti: string) => `upstream:${jti}`;

function refusedPage(reply: FastifyReply, status: number, title: string, message: string, back?: string): FastifyReply {
  return html(
    reply,
    status,
    page({
      title,
      body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>${back ? `\n<p><a href="${escapeHtml(back)}">Back to the sign-in page</a></p>` : ''}`,
    }),
  );
}

/**
 * Social sign-in from the sign-in page: `POST /interaction/:uid/upstream/:provider` (a button) sends
 * the browser to the provider with a fresh state, PKCE challenge and nonce; the provider sends it back
 * to `GET /upstream/:provider/callback`, which consumes the state once, checks the code, PKCE and (for
 * OpenID issuers) the ID token and its nonce, finds or makes the principal, starts the login session
 * and finishes the interaction it came from.
 */
export async function registerSocialLogin(app: App, deps: SocialDeps): Promise<void> {
  const publicUrl = new URL(deps.issuer);
  await app.register(async (plain) => {
    // A page for every refused request: these routes answer HTML, so a validation error in the service's JSON shape was
    // sent as "[object Object]".
    const scope = formScope(plain, {
      retry: 'The sign-in could not be read. Go back to the application and start again.',
    });

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
        const { uid, provider: providerId } = request.params;
        const upstream = deps.providers.get(providerId);
        if (!upstream)
          return refusedPage(
            reply,
            404,
            'Sign-in method not offered',
            'This sign-in method is not configured here.',
            `/interaction/${encodeURIComponent(uid)}`,
          );
        if (!sameOrigin(request, deps.issuer))
          return refusedPage(reply, 403, 'Request refused', 'This form was sent from another site.');
        presentToProvider(request, publicUrl);
        let jti: string;
        try {
          const d = await deps.holder.current.interactionDetails(request.raw, reply.raw);
          if (d.uid !== uid || d.prompt.name !== 'login') throw new Error('not a sign-in');
          jti = d.jti;
        } catch {
          return refusedPage(
            reply,
            400,
            'Sign-in request expired',
            'This sign-in request is no longer valid or was opened in another browser. Go back to the application and start again.',
          );
        }
        if (!deps.csrf.verify(upstreamCsrfBinding(jti), (request.body as { csrf?: unknown }).csrf)) {
          return refusedPage(
            reply,
            403,
            'Request refused',
            'This form has expired or was not sent from the sign-in page. Go back and try again.',
            `/interaction/${encodeURIComponent(uid)}`,
          );
        }
        const pending = await beginUpstreamLogin(deps.db, deps.secretKey, providerId, `/interaction/${uid}`);
        let to: URL;
        try {
          to = await upstream.provider.authorizationUrl(pending, callbackUrl(deps.issuer, providerId));
        } catch (err) {
          request.log.warn({ provider: providerId, err: (err as Error).message }, 'social sign-in could not start');
          return refusedPage(
            reply,
            400,
            `${upstream.name} is not answering`,
            `Signing in with ${upstream.name} is not possible right now. Try again later, or sign in with your password.`,
            `/interaction/${encodeURIComponent(uid)}`,
          );
        }
        return reply
          .header('set-cookie', upstreamCookie(pending.state))
          .header('cache-control', 'no-store')
          .redirect(to.href, 303);
      },
    );

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
        const providerId = request.params.provider;
        const upstream = deps.providers.get(providerId);
        reply.header('set-cookie', clearedUpstreamCookie());
        if (!upstream)
          return refusedPage(reply, 404, 'Sign-in method not offered', 'This sign-in method is not configured here.');
        const state = request.query.state ?? '';
        const cookie = readCookie(request.headers.cookie, UPSTREAM_COOKIE);
        // The state must come back to the browser that was sent away with it: otherwise someone could
        // hand a victim a callback URL of their own sign-in (login CSRF).
        const pending =
          cookie && cookie === state
            ? await consumeUpstreamLogin(deps.db, deps.secretKey, providerId, state)
            : undefined;
        if (pending?.linkPrincipalId) return finishLinking(deps, request, reply, pending, upstream);
        if (!pending || !INTERACTION_PATH.test(pending.redirectUrl)) {
          return refusedPage(
            reply,
            400,
            'Sign-in expired',
            `This sign-in with ${upstream.name} is unknown, was already used, has expired, or was started in another browser. Go back to the application and start again.`,
          );
        }
        const back = pending.redirectUrl;
        if (request.query.error)
          return refusedPage(
            reply,
            400,
            `${upstream.name} sign-in cancelled`,
            `${upstream.name} did not sign you in (${request.query.error}).`,
            back,
          );
        const here = new URL(request.url, deps.issuer);
        let resolved;
        try {
          const who = await upstream.provider.finish(here, pending, callbackUrl(deps.issuer, providerId));
          resolved = await resolvePrincipal(deps.db, providerId, who, deps.signup);
        } catch (err) {
          if (err instanceof LoginFailed || err instanceof SignInRefused) {
            request.log.info({ provider: providerId, reason: err.message }, 'social sign-in refused');
            return refusedPage(reply, 400, 'Sign-in failed', err.message, back);
          }
          throw err;
        }
        const account = await deps.accounts.find(resolved.principalId);
        if (!account?.active || account.type !== 'human')
          return refusedPage(reply, 403, 'Sign-in refused', 'This account is deactivated.', back);
        const uid = back.slice('/interaction/'.length);
        const interaction = await deps.holder.current.Interaction.find(uid);
        if (!interaction)
          return refusedPage(
            reply,
            400,
            'Sign-in request expired',
            "The application's sign-in request expired meanwhile. Go back to the application and start again.",
          );
        // Like a right password (checkPassword), the first step passing counts as the last login.
        await deps.db.query('UPDATE humans SET last_login_at = now() WHERE principal_id = $1', [account.id]);
        // A person with TOTP or a passkey passes the same second step as after a password: nothing is
        // signed in yet; the interaction page shows the second-factor form for this interaction.
        if (await deps.secondFactor?.afterUpstream(interaction.jti, account.id, providerId)) {
          return reply.header('cache-control', 'no-store').redirect(back, 303);
        }
        const token = await startLoginSession(
          deps.db,
          account.id,
          deps.loginSessionTtl,
          { ip: request.ip, userAgent: request.headers['user-agent'] },
          providerId,
        );
        // What provider.interactionResult does, by the uid the LoginState kept: the provider's interaction
        // cookie is scoped to /interaction/<uid> and never reaches this callback. Resuming still needs the
        // provider's resume cookie, which only the browser that started the request holds.
        interaction.result = { login: { accountId: account.id, remember: true, amr: [providerId] } };
        await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
        reply.header('set-cookie', [clearedUpstreamCookie(), loginCookie(token, deps.loginSessionTtl)]);
        return reply.header('cache-control', 'no-store').redirect(interaction.returnTo, 303);
      },
    );
  });
}

/** The sign-in page's buttons for the configured providers (nothing when none is). */
export function signInButtons(
  deps: Pick<SocialDeps, 'providers' | 'csrf'>,
): (d: { uid: string; jti: string }) => string {
  const list = [...deps.providers.entries()].map(([id, p]) => ({ id, name: p.name }));
  return (d) => providerButtons(d.uid, deps.csrf.issue(upstreamCsrfBinding(d.jti)), list);
}
