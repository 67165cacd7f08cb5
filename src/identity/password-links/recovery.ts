import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { Mailer } from '../../kit/outbound/mail.ts';
import { issueResetLink } from './issue.ts';
import { passwordLinkUrl } from './store.ts';

export interface RecoveryMailDeps {
  db: Database;
  mailer: Mailer;
  issuer: string;
  /** IDENTITY_PASSWORD_RESET_TTL, in seconds. */
  ttlSeconds: number;
  log: FastifyBaseLogger;
}

/** More waiting requests than this are dropped (logged): a flood past the throttle cannot grow memory without bound. */
const MAX_WAITING = 1_000;

/**
 * The "forgot password" mail, sent after the answer, never before: the page's answer must not tell whether the address
 * has an account, neither by its words nor by how long it takes. So the request path does the same thing for every
 * address (queue the address, answer), and the look-up, the link and the SMTP exchange happen here, one request after
 * the other, on this instance. A request lost to a restart is asked again by the person ("nothing arrived? ask again").
 */
export class RecoveryMail {
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;
  private readonly deps: RecoveryMailDeps;
  constructor(deps: RecoveryMailDeps) {
    this.deps = deps;
  }

  /** Queues the look-up and the mail for `email`; returns at once, whatever the address. */
  request(email: string): void {
    if (this.waiting >= MAX_WAITING) {
      this.deps.log.warn('password reset request dropped: too many waiting');
      return;
    }
    this.waiting++;
    this.queue = this.queue
      .then(() => this.send(email))
      .catch((err: unknown) => this.deps.log.error({ err }, 'password reset mail failed'))
      .finally(() => {
        this.waiting--;
      });
  }

  /** Settles once every request queued so far is handled (the app's close waits for it). */
  idle(): Promise<void> {
    return this.queue;
  }

  private async send(email: string): Promise<void> {
    const made = await issueResetLink(this.deps.db, email, this.deps.ttlSeconds);
    // Nobody to mail: nothing is sent and nothing says so, not even the log (it would list who has no account).
    if (!made) return;
    const link = passwordLinkUrl(this.deps.issuer, made.token);
    const minutes = Math.round(this.deps.ttlSeconds / 60);
    await this.deps.mailer.send({
      to: made.email,
      secretLinks: [link],
      subject: 'Choose a new password',
      text: [
        `Someone asked to choose a new password for the account ${made.email} at ${new URL(this.deps.issuer).host}.`,
        '',
        `Choose a new password: ${link}`,
        '',
        `The link works once, for ${minutes} minutes (until ${made.expiresAt}). Choosing a new password signs you out everywhere.`,
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ].join('\n'),
    });
  }
}
