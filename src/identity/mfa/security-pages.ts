import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { PrincipalView } from '../principals/view.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { errorPage, escapeHtml, page } from '../web/layout.ts';
import { html, pageLanguage } from '../web/respond.ts';
import { signInLink } from '../web/sign-in-link.ts';
import { AccountGuard, type AccountPage } from '../access/account-guard.ts';
import { signedInAs } from '../access/signed-in.ts';
import { csrfBinding, type SignedIn } from '../sessions/signed-in.ts';
import { hasTotp, pendingEnrollment } from './totp.ts';
import { recoveryCodesLeft } from './recovery-codes.ts';
import { listPasskeys, relyingParty, type RelyingParty } from './passkeys.ts';
import { securityPage, totpEnrollPage } from './templates.ts';

export interface AccountDeps {
  db: Database;
  secretKey: Buffer;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
}

/** The person on a security page: the account and the CSRF binding of this login session. */
export interface Person {
  account: PrincipalView;
  csrf: string;
  binding: string;
  /** When the login session's sign-in passed a second step, if it did. */
  secondFactorAt: Date | undefined;
}

export const SECURITY: AccountPage = {
  path: '/account/security',
  purpose: 'security',
  name: 'the sign-in security page',
};

/**
 * How long after a second step a factor may be removed. Older (or a session without one) and the person signs in
 * again with their second step: a borrowed or stolen login session alone must not strip the account's protection.
 */
const FRESH_STEP_SECONDS = 10 * 60;

/** What every security page and form does: who is asking, the overview page, the authenticator setup page. */
export class SecurityPages {
  readonly deps: AccountDeps;
  readonly rp: RelyingParty;
  private readonly guard: AccountGuard;

  constructor(deps: AccountDeps) {
    this.deps = deps;
    this.rp = relyingParty(deps.issuer);
    this.guard = new AccountGuard(deps);
  }

  // The passkey options' fetch and the forms need the same Person: the account and the CSRF binding of this session.
  private personOf(who: SignedIn | undefined): Person | undefined {
    return who?.account.type === 'human'
      ? {
          account: who.account,
          binding: csrfBinding(SECURITY.purpose, who),
          csrf: this.guard.csrf(who, SECURITY),
          secondFactorAt: who.session.secondFactorAt,
        }
      : undefined;
  }

  /** A page or the options' fetch: the person, undefined for a signed-in principal that is not a person. */
  person(request: FastifyRequest): Person | undefined {
    return this.personOf(signedInAs(request));
  }

  /** A posted form: signed in, same origin, right CSRF token; undefined once refused. */
  formPerson(
    request: FastifyRequest<{ Body: { csrf?: string | undefined } }>,
    reply: FastifyReply,
  ): Person | undefined {
    const who = this.guard.form(request, reply, SECURITY);
    if (who && who.account.type !== 'human') this.notHuman(reply);
    return this.personOf(who);
  }

  notHuman(reply: FastifyReply): FastifyReply {
    const { lang, t } = pageLanguage(reply.request, reply);
    return html(reply, 400, errorPage(t.totp.notHumanTitle, t.totp.notHuman, lang));
  }

  /** Whether the session's second step is recent enough to remove a factor; else answers with the page asking for one. */
  freshStep(reply: FastifyReply, who: Person): boolean {
    const at = who.secondFactorAt?.getTime();
    if (at !== undefined && Date.now() - at < FRESH_STEP_SECONDS * 1000) return true;
    const { lang, t } = pageLanguage(reply.request, reply);
    html(
      reply,
      403,
      page({
        lang,
        title: t.totp.confirmTitle,
        body: `<h1>${escapeHtml(t.totp.confirmTitle)}</h1>
<p>${escapeHtml(t.totp.confirmText)}</p>
<p><a href="${escapeHtml(signInLink('/account/security', who.account.human?.email, true))}">${escapeHtml(t.totp.confirmLink)}</a>${escapeHtml(t.totp.confirmAfter(FRESH_STEP_SECONDS / 60))}</p>`,
      }),
    );
    return false;
  }

  /** The security page: the authenticator app, the recovery codes left, the passkeys; a notice or an error above. */
  async overview(
    reply: FastifyReply,
    who: Person,
    status = 200,
    extra: { notice?: string; error?: string } = {},
  ): Promise<FastifyReply> {
    const id = who.account.id;
    const [totp, recoveryLeft, passkeys] = await Promise.all([
      hasTotp(this.deps.db, id),
      recoveryCodesLeft(this.deps.db, id),
      listPasskeys(this.deps.db, id),
    ]);
    return html(
      reply,
      status,
      securityPage({
        accountLabel: who.account.identifier,
        csrf: who.csrf,
        totp,
        recoveryLeft,
        passkeys,
        ...extra,
        loc: pageLanguage(reply.request, reply),
      }),
    );
  }

  /** The authenticator setup page: its pending secret as a QR code and a key, and the first code's form. */
  async enrollPage(reply: FastifyReply, who: Person, status: number, error?: string): Promise<FastifyReply> {
    const d = this.deps;
    const pending = await pendingEnrollment(d.db, d.secretKey, who.account.id, who.account.identifier, this.rp.name);
    return html(
      reply,
      status,
      totpEnrollPage({ ...pending, csrf: who.csrf, error, loc: pageLanguage(reply.request, reply) }),
    );
  }
}
