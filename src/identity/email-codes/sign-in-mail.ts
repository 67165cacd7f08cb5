import type { Database } from '../../kit/db.ts';
import type { Mailer } from '../../kit/outbound/mail.ts';
import type { MailJob } from '../courier/courier.ts';
import { findHumanByEmail } from '../principals/view.ts';
import { knownLanguage, LANGUAGES } from '../web/i18n/negotiate.ts';
import { mailCode } from './mail.ts';
import { CODE_TTL_SECONDS, issueCode } from './store.ts';

export interface SignInCodeMailDeps {
  db: Database;
  secretKey: Buffer;
  mailer: Mailer;
  issuer: string;
}

/**
 * The sign-in code mail, sent by the courier (courier/courier.ts) after the page answered ("Email me a sign-in code",
 * sign-in.ts): the look-up, the code and the SMTP exchange happen here. The code is made at each attempt (a new one
 * spends the older, which was never mailed), and a request older than a code's lifetime is dropped.
 */
export function signInCodeJob(deps: SignInCodeMailDeps): MailJob {
  return {
    what: 'sign-in code mail',
    lifetimeSeconds: CODE_TTL_SECONDS,
    async send({ email, lang, boundTo }) {
      const human = await findHumanByEmail(deps.db, email);
      // Nobody to mail: nothing is sent and nothing is logged.
      if (!human?.active || !human.human || !boundTo) return;
      const code = await issueCode(deps.db, deps.secretKey, {
        principalId: human.id,
        email,
        purpose: 'sign_in',
        boundTo,
      });
      const language = knownLanguage(lang);
      await mailCode(deps.mailer, {
        to: human.human.email,
        code,
        purpose: 'sign_in',
        host: new URL(deps.issuer).host,
        loc: { lang: language, t: LANGUAGES[language] },
      });
    },
  };
}
