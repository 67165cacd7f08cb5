import type { Database } from '../../kit/db.ts';
import type { Mailer } from '../../kit/outbound/mail.ts';
import type { MailJob } from '../courier/courier.ts';
import { issueResetLink } from './issue.ts';
import { passwordLinkUrl } from './store.ts';
import { knownLanguage, LANGUAGES } from '../web/i18n/negotiate.ts';

export interface RecoveryMailDeps {
  db: Database;
  mailer: Mailer;
  issuer: string;
  /** IDENTITY_PASSWORD_RESET_TTL, in seconds. */
  ttlSeconds: number;
}

/**
 * The "forgot password" mail, sent by the courier (courier/courier.ts) after the page answered: the page's answer must
 * not tell whether the address has an account, neither by its words nor by how long it takes, so the look-up, the
 * link and the SMTP exchange happen here. The link is made at each attempt (a failed one's link was never mailed, and
 * the next replaces it), and a request older than the link's lifetime is dropped.
 */
export function resetMailJob(deps: RecoveryMailDeps): MailJob {
  return {
    what: 'password reset mail',
    lifetimeSeconds: deps.ttlSeconds,
    send: (request) => sendResetMail(deps, request.email, request.lang),
  };
}

async function sendResetMail(deps: RecoveryMailDeps, email: string, lang: string): Promise<void> {
  const language = knownLanguage(lang);
  const t = LANGUAGES[language].resetMail;
  const made = await issueResetLink(deps.db, email, deps.ttlSeconds);
  // Nobody to mail: nothing is sent and nothing says so, not even the log (it would list who has no account).
  if (!made) return;
  const link = passwordLinkUrl(deps.issuer, made.token);
  const minutes = Math.round(deps.ttlSeconds / 60);
  await deps.mailer.send({
    to: made.email,
    secretLinks: [link],
    language,
    subject: t.subject,
    text: [
      t.asked(made.email, new URL(deps.issuer).host),
      '',
      t.choose(link),
      '',
      t.rules(minutes, made.expiresAt),
      t.unasked,
    ].join('\n'),
  });
}
