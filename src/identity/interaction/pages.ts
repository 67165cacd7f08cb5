import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import type { Throttle } from '../../kit/throttle.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { OidcProvider } from '../oidc/provider.ts';
import { presentToProvider, type ProviderHolder } from '../oidc/mount.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { errorPage } from '../web/layout.ts';
import { fromAnotherSite, html, pageLanguage, refusedForm, sameOrigin } from '../web/respond.ts';
import type { InteractionTools, SecondFactor } from '../mfa/interaction.ts';
import { signInPage } from './templates.ts';
import type { Messages } from '../web/i18n/en.ts';
import { pageBranding } from './branding.ts';

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
  /** Routes of other ways to sign in that finish the interaction like these pages (email-codes/), given the pages' tools. */
  moreRoutes?: ((plain: FastifyInstance, pages: InteractionPages) => void) | undefined;
  /**
   * Enterprise SSO (enterprise-sso/): `route` answers whether an address is bound to an organization's connector (and
   * the person is not a platform admin, who keeps the password); `send` sends the browser there.
   */
  enterpriseSso?: EnterpriseRouting | undefined;
  /** More ways to sign in shown under the password form (social login's buttons). */
  signInExtras?: ((d: { uid: string; jti: string }, t: Messages) => string) | undefined;
}

export interface EnterpriseRouting {
  route(
    email: string,
    request: FastifyRequest,
    uid: string,
  ): Promise<{ domain: string; organization: string; go: (reply: FastifyReply) => Promise<FastifyReply> } | undefined>;
}

/** What every page of an interaction does: find it, answer an expired one, show the sign-in form, finish it. */
export interface InteractionPages extends InteractionTools {
  provider(): OidcProvider;
  /** The sign-in form; `email` fills it in (the login_hint when not given), `error` says what went wrong. */
  showSignIn(
    reply: FastifyReply,
    d: Interaction,
    status: number,
    form?: { email?: string | undefined; error?: string | undefined; passkeyError?: string | undefined },
  ): Promise<FastifyReply>;
}

export function interactionPages(deps: PageDeps): InteractionPages {
  const publicUrl = new URL(deps.issuer);
  const provider = (): OidcProvider => deps.holder.current;

  async function lookup(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Interaction | undefined> {
    presentToProvider(request, publicUrl);
    try {
      const d = await provider().interactionDetails(request.raw, reply.raw);
      return d.uid === uid ? d : undefined;
    } catch {
      return undefined;
    }
  }

  async function details(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Interaction | undefined> {
    const d = await lookup(request, reply, uid);
    if (!d) {
      const { lang, t } = pageLanguage(request, reply);
      html(reply, 400, errorPage(t.errors.requestExpiredTitle, t.errors.requestExpired, lang));
    }
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

  const showSignIn = signInForm(deps, provider);

  const form = postedForm(deps, details);

  return {
    provider,
    lookup,
    details,
    finish,
    form,
    html,
    sameOrigin: (request) => sameOrigin(request, deps.issuer),
    signInAgain: (_request, reply, d, status, error) => showSignIn(reply, d, status, { passkeyError: error }),
    showSignIn,
  };
}

/** The sign-in form; `email` fills it in (the login_hint when not given), `error` says what went wrong. */
function signInForm(deps: PageDeps, provider: () => OidcProvider): InteractionPages['showSignIn'] {
  return async (reply, d, status, form = {}) => {
    const client = await provider().Client.find(String(d.params.client_id));
    const hint = typeof d.params.login_hint === 'string' ? d.params.login_hint : undefined;
    // The app's choice (its email_code_sign_in setting, email-codes/): the same form, a second button.
    const settings = client as { email_code_sign_in?: unknown } | undefined;
    const emailCode = settings?.email_code_sign_in === true;
    const loc = pageLanguage(reply.request, reply);
    return html(
      reply,
      status,
      signInPage({
        action: `/interaction/${encodeURIComponent(d.uid)}/login`,
        csrf: deps.csrf.issue(`login:${d.jti}`),
        email: 'email' in form ? form.email : hint,
        error: form.error,
        appName: client?.clientName,
        ...(await pageBranding(deps.db, client, d.params)),
        loc,
        emailCode: emailCode ? `/interaction/${encodeURIComponent(d.uid)}/email-code` : undefined,
        passkey: deps.secondFactor ? { ...deps.secondFactor.signInOption(d), error: form.passkeyError } : undefined,
        extra: deps.signInExtras?.(d, loc.t),
      }),
    );
  };
}

/** A form posted on an interaction's page, checked as InteractionTools.form says. */
function postedForm(deps: PageDeps, details: InteractionTools['details']): InteractionPages['form'] {
  return async (request, reply, uid, expect) => {
    if (!sameOrigin(request, deps.issuer)) {
      fromAnotherSite(reply, pageLanguage(request, reply));
      return undefined;
    }
    const d = await details(request, reply, uid);
    if (!d) return undefined;
    if (d.prompt.name !== expect.prompt || !deps.csrf.verify(`${expect.purpose}:${d.jti}`, request.body.csrf)) {
      refusedForm(reply, expect.page, pageLanguage(request, reply));
      return undefined;
    }
    return d;
  };
}
