import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { checkPassword } from '../principals/store.ts';
import { normaliseEmail } from '../principals/view.ts';
import { startLoginSession, findLoginSession, endLoginSession } from '../sessions/store.ts';
import { LOGIN_COOKIE, loginCookie, clearedLoginCookie } from '../sessions/cookie.ts';
import { readCookie } from '../web/cookies.ts';
import { consentedScopes, recordConsent, touchConsent } from '../consent/store.ts';
import type { Interaction } from 'oidc-provider';
import type { OidcProvider } from '../oidc/provider.ts';
import { grantableScopes } from '../oidc/entitlement.ts';
import { presentToProvider, type ProviderHolder } from '../oidc/mount.ts';
import { endProviderSession } from '../oidc/store.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { CsrfTokens } from '../web/csrf.ts';
import type { Throttle } from '../../kit/throttle.ts';
import { errorPage } from '../web/layout.ts';
import { formScope, html, sameOrigin } from '../web/respond.ts';
import { consentPage, signInPage, signOutPage } from './templates.ts';
import type { InteractionTools, SecondFactor } from '../mfa/interaction.ts';
import { PUBLIC } from '../access/rules.ts';

export interface PageDeps {
  db: Database;
  holder: ProviderHolder;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  throttle: Throttle;
  issuer: string;
  loginSessionTtl: number;
  /** TOTP / passkey second factor and passkey sign-in (src/identity/mfa); absent, the password alone signs in. */
  secondFactor?: SecondFactor;
  /** More ways to sign in shown under the password form (social login's buttons). */
  signInExtras?: ((d: { uid: string; jti: string }) => string) | undefined;
}

const Params = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) });
const FormBody = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
    decision: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: true },
);
const tags = ['sign-in'];
const Html = {
  200: Type.String(),
  400: Type.String(),
  401: Type.String(),
  403: Type.String(),
  413: Type.String(),
  415: Type.String(),
  429: Type.String(),
};

function requestOrigin(request: FastifyRequest) {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}

/** The browser pages of the interaction: sign-in, consent, and the service's own sign-out. */
export async function registerPages(app: App, deps: PageDeps): Promise<void> {
  const provider = (): OidcProvider => deps.holder.current;

  const publicUrl = new URL(deps.issuer);
  await app.register(async (plain) => {
    const scope = formScope(plain, {
      retry: 'The form could not be read. Go back to the application and start again.',
    });

    async function lookup(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Interaction | undefined> {
      presentToProvider(request, publicUrl);
      try {
        const d = await provider().interactionDetails(request.raw, reply.raw);
        return d.uid === uid ? d : undefined;
      } catch {
        return undefined;
      }
    }

    async function details(
      request: FastifyRequest,
      reply: FastifyReply,
      uid: string,
    ): Promise<Interaction | undefined> {
      const d = await lookup(request, reply, uid);
      if (!d)
        html(
          reply,
          400,
          errorPage(
            'Sign-in request expired',
            'This sign-in request is no longer valid or was opened in another browser. Go back to the application and start again.',
          ),
        );
      return d;
    }

    async function finish(
      request: FastifyRequest,
      reply: FastifyReply,
      result: Record<string, unknown>,
      cookies: string[] = [],
    ): Promise<FastifyReply> {
      const to = await provider().interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
      // interactionResult may already have set provider cookies on the raw response; keep them.
      const existing = reply.raw.getHeader('set-cookie');
      const all = [...(Array.isArray(existing) ? existing : existing ? [String(existing)] : []), ...cookies];
      reply.raw.removeHeader('set-cookie');
      if (all.length) reply.header('set-cookie', all);
      return reply.code(303).header('cache-control', 'no-store').redirect(to, 303);
    }

    async function showSignIn(
      reply: FastifyReply,
      d: Interaction,
      status: number,
      passkeyError?: string,
    ): Promise<FastifyReply> {
      const client = await provider().Client.find(String(d.params.client_id));
      return html(
        reply,
        status,
        signInPage({
          action: `/interaction/${encodeURIComponent(d.uid)}/login`,
          csrf: deps.csrf.issue(`login:${d.jti}`),
          email: typeof d.params.login_hint === 'string' ? d.params.login_hint : undefined,
          appName: client?.clientName,
          passkey: deps.secondFactor ? { ...deps.secondFactor.signInOption(d), error: passkeyError } : undefined,
          extra: deps.signInExtras?.(d),
        }),
      );
    }

    const tools: InteractionTools = {
      details,
      lookup,
      finish,
      html,
      sameOrigin: (request) => sameOrigin(request, deps.issuer),
      signInAgain: (_request, reply, d, status, error) => showSignIn(reply, d, status, error),
    };
    deps.secondFactor?.registerRoutes(plain, tools);

    async function consentStep(
      request: FastifyRequest,
      reply: FastifyReply,
      d: Interaction,
      decided: 'allow' | undefined,
    ): Promise<FastifyReply> {
      const accountId = d.session?.accountId;
      const client = await provider().Client.find(String(d.params.client_id));
      const account = await deps.accounts.find(accountId);
      if (!accountId || !client || !account)
        return html(
          reply,
          400,
          errorPage('Sign-in request failed', 'The application or the account of this request no longer exists.'),
        );
      const Grant = provider().Grant;
      // The grant this request adds to may have gone since the page was shown (consent withdrawn): what is missing
      // was computed against it, so the request must start again rather than build on nothing.
      const existing = d.grantId ? await Grant.find(d.grantId) : undefined;
      if (d.grantId && !existing) {
        return html(
          reply,
          400,
          errorPage(
            'Sign-in request expired',
            'Access to this application was withdrawn while this page was open. Go back to the application and start again.',
          ),
        );
      }
      const missing = (d.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
      const grantable = grantableScopes(missing, client.scope, account.allowedScopes);
      const already = await consentedScopes(deps.db, accountId, client.clientId);
      const needsAnswer = client.first_party !== true && grantable.some((s) => !already.has(s));
      if (needsAnswer && decided !== 'allow') {
        const uid = d.uid;
        return html(
          reply,
          200,
          consentPage({
            action: `/interaction/${encodeURIComponent(uid)}/consent`,
            csrf: deps.csrf.issue(`consent:${d.jti}`),
            appName: client.clientName ?? client.clientId,
            scopes: grantable,
            accountLabel: account.identifier,
          }),
        );
      }
      if (client.first_party !== true) {
        if (needsAnswer) await recordConsent(deps.db, accountId, client.clientId, grantable);
        else await touchConsent(deps.db, accountId, client.clientId);
      }
      const grant = existing ?? new Grant({ accountId, clientId: client.clientId });
      if (grantable.length) grant.addOIDCScope(grantable.join(' '));
      const rejected = missing.filter((s) => !grantable.includes(s));
      if (rejected.length) grant.rejectOIDCScope(rejected.join(' '));
      const claims = d.prompt.details.missingOIDCClaims as string[] | undefined;
      if (claims?.length) grant.addOIDCClaims(claims);
      const grantId = await grant.save();
      return finish(request, reply, { consent: { grantId } });
    }

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
        const d = await details(request, reply, request.params.uid);
        if (!d) return reply;
        if (d.prompt.name === 'login') {
          // A social sign-in of a person with a second factor comes back here for that step.
          const second = await deps.secondFactor?.resume(reply, d, tools);
          if (second) return second;
          const session = await findLoginSession(deps.db, readCookie(request.headers.cookie, LOGIN_COOKIE));
          if (session && d.prompt.reasons.every((r) => r === 'no_session' || r === 'login_session')) {
            return finish(request, reply, { login: { accountId: session.principalId } });
          }
          return showSignIn(reply, d, 200);
        }
        if (d.prompt.name === 'consent') return consentStep(request, reply, d, undefined);
        return html(
          reply,
          400,
          errorPage('Sign-in request failed', 'This request needs a step the service does not offer.'),
        );
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
        if (!sameOrigin(request, deps.issuer))
          return html(reply, 403, errorPage('Request refused', 'This form was sent from another site.'));
        const d = await details(request, reply, request.params.uid);
        if (!d) return reply;
        if (d.prompt.name !== 'login' || !deps.csrf.verify(`login:${d.jti}`, request.body.csrf)) {
          return html(
            reply,
            403,
            errorPage(
              'Request refused',
              'This form has expired or was not sent from the sign-in page. Go back and try again.',
            ),
          );
        }
        const email = normaliseEmail(String(request.body.email ?? ''));
        const password = String(request.body.password ?? '');
        const client = await provider().Client.find(String(d.params.client_id));
        const again = (status: number, error: string) =>
          html(
            reply,
            status,
            signInPage({
              action: `/interaction/${encodeURIComponent(d.uid)}/login`,
              csrf: deps.csrf.issue(`login:${d.jti}`),
              email,
              error,
              appName: client?.clientName,
              passkey: deps.secondFactor?.signInOption(d),
              extra: deps.signInExtras?.(d),
            }),
          );
        if (!email || !password) return again(400, 'Enter your email address and your password.');
        const keys = [`account:${sha256Hex(email)}`, `address:${request.ip}`];
        const wait = await deps.throttle.waitSeconds(keys);
        if (wait > 0) {
          reply.header('retry-after', String(wait));
          return again(
            429,
            `Too many failed sign-in attempts. Wait ${wait} second${wait === 1 ? '' : 's'} and try again.`,
          );
        }
        const human = await checkPassword(deps.db, email, password, request.ip);
        if (!human) {
          await deps.throttle.fail(keys);
          return again(401, 'The email address or the password is not correct.');
        }
        await deps.throttle.succeed(keys[0]!);
        const second = await deps.secondFactor?.afterPassword(request, reply, d, human.id, tools);
        if (second) return second;
        const token = await startLoginSession(deps.db, human.id, deps.loginSessionTtl, requestOrigin(request));
        return finish(request, reply, { login: { accountId: human.id, remember: true } }, [
          loginCookie(token, deps.loginSessionTtl),
        ]);
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
        if (!sameOrigin(request, deps.issuer))
          return html(reply, 403, errorPage('Request refused', 'This form was sent from another site.'));
        const d = await details(request, reply, request.params.uid);
        if (!d) return reply;
        if (d.prompt.name !== 'consent' || !deps.csrf.verify(`consent:${d.jti}`, request.body.csrf)) {
          return html(
            reply,
            403,
            errorPage(
              'Request refused',
              'This form has expired or was not sent from the consent page. Go back and try again.',
            ),
          );
        }
        if (request.body.decision === 'deny') {
          return finish(request, reply, { error: 'access_denied', error_description: 'the user denied the request' });
        }
        if (request.body.decision !== 'allow')
          return html(reply, 400, errorPage('Request refused', 'Choose Allow or Deny.'));
        return consentStep(request, reply, d, 'allow');
      },
    );

    scope.get(
      '/signout',
      {
        config: { access: PUBLIC },
        schema: { operationId: 'signOutPage', tags, summary: 'The sign-out page', response: Html },
      },
      async (request, reply) => {
        const token = readCookie(request.headers.cookie, LOGIN_COOKIE);
        const session = await findLoginSession(deps.db, token);
        const account = session ? await deps.accounts.find(session.principalId) : undefined;
        return html(
          reply,
          200,
          signOutPage({
            action: '/signout',
            csrf: deps.csrf.issue(`signout:${sha256Hex(token ?? '')}`),
            accountLabel: account?.identifier,
          }),
        );
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
        const token = readCookie(request.headers.cookie, LOGIN_COOKIE);
        if (
          !sameOrigin(request, deps.issuer) ||
          !deps.csrf.verify(`signout:${sha256Hex(token ?? '')}`, request.body.csrf)
        ) {
          return html(
            reply,
            403,
            errorPage(
              'Request refused',
              'This form has expired or was not sent from the sign-out page. Go back and try again.',
            ),
          );
        }
        await endLoginSession(deps.db, token);
        // The provider's own session ends too, so no application can reuse it to skip signing in.
        const sessionCookie = provider().cookieName('session');
        const providerSession = readCookie(request.headers.cookie, sessionCookie);
        if (providerSession) await endProviderSession(deps.db, providerSession);
        reply.header('set-cookie', [
          clearedLoginCookie(),
          `${sessionCookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
          `${sessionCookie}.sig=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
        ]);
        return html(reply, 200, signOutPage({ action: '/signout', csrf: '' }));
      },
    );
  });
}
