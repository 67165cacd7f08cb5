import type { Mailer } from '../../kit/outbound/mail.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import { CODE_TTL_SECONDS } from './store.ts';

/**
 * The mail with a code: the code first (a phone's preview shows it), what it is for, and what to do if unasked; in the
 * language of the page that asked for it (`loc`, English when absent).
 */
export function mailCode(
  mailer: Mailer,
  input: { to: string; code: string; purpose: 'verify' | 'sign_in'; host: string; loc?: Localized | undefined },
): Promise<boolean> {
  const minutes = CODE_TTL_SECONDS / 60;
  const { lang, t: all } = input.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.codeMail;
  const signIn = input.purpose === 'sign_in';
  return mailer.send({
    to: input.to,
    language: lang,
    subject: signIn ? t.signInSubject(input.code) : t.verifySubject(input.code),
    text: [`${input.code}`, '', signIn ? t.signIn(input.host, minutes) : t.verify(input.host, minutes), t.unasked].join(
      '\n',
    ),
  });
}
