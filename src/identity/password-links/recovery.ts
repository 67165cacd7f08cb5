import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { Mailer } from '../../kit/outbound/mail.ts';
import { AfterAnswer } from '../web/after-answer.ts';
import { issueResetLink } from './issue.ts';
import { passwordLinkUrl } from './store.ts';
import { LANGUAGES, type Language } from '../web/i18n/negotiate.ts';

export interface RecoveryMailDeps {
  db: Database;
  mailer: Mailer;
  issuer: string;
  /** IDENTITY_PASSWORD_RESET_TTL, in seconds. */
  ttlSeconds: number;
  log: FastifyBaseLogger;
}

/**
 * The "forgot password" mail, sent after the answer (web/after-answer.ts): the page's answer must not tell whether the
 * address has an account, neither by its words nor by how long it takes, so the look-up, the link and the SMTP exchange
 * happen after it.
 */
export class RecoveryMail {
  private readonly deps: RecoveryMailDeps;
  private readonly later: AfterAnswer;
  constructor(deps: RecoveryMailDeps) {
    this.deps = deps;
    this.later = new AfterAnswer(deps.log, 'password reset mail');
  }

  /** Queues the look-up and the mail for `email`, in `lang` (the asking page's); returns at once, whatever the address. */
  request(email: string, lang: Language = 'en'): void {
    this.later.run(() => this.send(email, lang));
  }

  /** Settles once every request queued so far is handled (the app's close waits for it). */
  idle(): Promise<void> {
    return this.later.idle();
  }

  private async send(email: string, lang: Language): Promise<void> {
    const t = LANGUAGES[lang].resetMail;
    const made = await issueResetLink(this.deps.db, email, this.deps.ttlSeconds);
    // Nobody to mail: nothing is sent and nothing says so, not even the log (it would list who has no account).
    if (!made) return;
    const link = passwordLinkUrl(this.deps.issuer, made.token);
    const minutes = Math.round(this.deps.ttlSeconds / 60);
    await this.deps.mailer.send({
      to: made.email,
      secretLinks: [link],
      language: lang,
      subject: t.subject,
      text: [
        t.asked(made.email, new URL(this.deps.issuer).host),
        '',
        t.choose(link),
        '',
        t.rules(minutes, made.expiresAt),
        t.unasked,
      ].join('\n'),
    });
  }
}
