import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import type { Throttle } from '../../kit/throttle.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { hasTotp } from './totp.ts';
import { findPending, startPending } from './pending.ts';
import { hasPasskey } from './passkeys.ts';
import { passkeyOption, showSecondFactor } from './second-step.ts';
import { registerSecondStepRoutes } from './interaction-routes.ts';
import { secondFactorRequired } from '../apps/second-factor-policy.ts';
import { ORGANIZATION_PARAM } from '../organizations/token-scope.ts';
import { html, pageLanguage } from '../web/respond.ts';
import type { Localized } from '../web/i18n/negotiate.ts';
import { escapeHtml, page } from '../web/layout.ts';

/** The sign-in of a person without a second factor, to an app or organization that requires one. */
export function secondFactorNeededPage(issuer: string, loc: Localized): string {
  const security = new URL('/account/security', issuer).href;
  const t = loc.t.totp;
  return page({
    lang: loc.lang,
    title: t.neededTitle,
    body: `<h1>${escapeHtml(t.neededTitle)}</h1>
<p>${escapeHtml(t.needed)}</p>
<p><a href="${escapeHtml(security)}">${escapeHtml(t.neededLink)}</a>${escapeHtml(t.neededAfter)}</p>`,
  });
}

/** What the sign-in pages lend this module, so the second factor finishes the interaction the same way. */
export interface InteractionTools {
  details(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Interaction | undefined>;
  /** Like details, but answers nothing when the interaction is gone (for JSON routes). */
  lookup(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Interaction | undefined>;
  finish(
    request: FastifyRequest,
    reply: FastifyReply,
    result: Record<string, unknown>,
    cookies?: string[],
  ): Promise<FastifyReply>;
  html(reply: FastifyReply, status: number, body: string): FastifyReply;
  sameOrigin(request: FastifyRequest): boolean;
  /**
   * A form posted on this interaction's page: from this origin, the interaction still at `prompt`, its CSRF field
   * this interaction's token for `purpose`. Undefined once refused (403 naming `page`, or the expired page).
   */
  form(
    request: FastifyRequest<{ Body: { csrf?: string | undefined } }>,
    reply: FastifyReply,
    uid: string,
    expect: { prompt: 'login' | 'consent'; purpose: string; page: string },
  ): Promise<Interaction | undefined>;
  /** The sign-in page again with a refused passkey's error beside its button. */
  signInAgain(
    request: FastifyRequest,
    reply: FastifyReply,
    d: Interaction,
    status: number,
    error: string,
  ): Promise<FastifyReply>;
}

export interface SecondFactorDeps {
  db: Database;
  secretKey: Buffer;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  throttle: Throttle;
  issuer: string;
  loginSessionTtl: number;
}

export interface SecondFactor {
  /** Adds the second-factor and passkey routes to the sign-in pages' context. */
  registerRoutes(plain: FastifyInstance, tools: InteractionTools): void;
  /** After a right password: the second-factor page when the person has one, else undefined (signed in). */
  afterPassword(
    request: FastifyRequest,
    reply: FastifyReply,
    d: Interaction,
    principalId: string,
    tools: InteractionTools,
  ): Promise<FastifyReply | undefined>;
  /**
   * After a social sign-in (`provider` is its id): records the pending second step and answers true when the
   * person has a second factor, so the sign-in goes on at the interaction page instead of finishing.
   */
  afterUpstream(interactionId: string, principalId: string, provider: string): Promise<boolean>;
  /** The interaction page while a second step is pending for it: the second-factor page, else undefined. */
  resume(reply: FastifyReply, d: Interaction, tools: InteractionTools): Promise<FastifyReply | undefined>;
  /** The passkey button of the sign-in page. */
  signInOption(d: Interaction): { action: string; optionsUrl: string; csrf: string };
}

/** The second step (TOTP, a recovery code or a passkey) and passkey sign-in, for the sign-in pages (src/identity/interaction). */
export function secondFactor(deps: SecondFactorDeps): SecondFactor {
  const hasSecondFactor = async (principalId: string) => {
    const [totp, passkey] = await Promise.all([hasTotp(deps.db, principalId), hasPasskey(deps.db, principalId)]);
    return totp || passkey;
  };
  return {
    signInOption: (d) => passkeyOption(deps, d),

    async afterPassword(_request, reply, d, principalId, tools) {
      if (!(await hasSecondFactor(principalId))) {
        if (await secondFactorRequired(deps.db, d.params.client_id, d.params[ORGANIZATION_PARAM]))
          return html(reply, 403, secondFactorNeededPage(deps.issuer, pageLanguage(reply.request, reply)));
        return undefined;
      }
      await startPending(deps.db, d.jti, principalId);
      return showSecondFactor(deps, reply, tools, d, principalId, 200);
    },

    async afterUpstream(interactionId, principalId, provider) {
      if (!(await hasSecondFactor(principalId))) return false;
      await startPending(deps.db, interactionId, principalId, provider);
      return true;
    },

    async resume(reply, d, tools) {
      if (d.prompt.name !== 'login') return undefined;
      const pending = await findPending(deps.db, d.jti);
      return pending ? showSecondFactor(deps, reply, tools, d, pending, 200) : undefined;
    },

    registerRoutes: (plain, tools) => registerSecondStepRoutes(plain, deps, tools),
  };
}
