import type { Mailer } from '../../kit/outbound/mail.ts';
import { CODE_TTL_SECONDS } from './store.ts';

/** The mail with a code: the code first (a phone's preview shows it), what it is for, and what to do if unasked. */
export function mailCode(
  mailer: Mailer,
  input: { to: string; code: string; purpose: 'verify' | 'sign_in'; host: string },
): Promise<boolean> {
  const minutes = CODE_TTL_SECONDS / 60;
  const what =
    input.purpose === 'sign_in'
      ? `to sign in to your account at ${input.host}`
      : `to verify this email address for your account at ${input.host}`;
  return mailer.send({
    to: input.to,
    subject: input.purpose === 'sign_in' ? `Your sign-in code: ${input.code}` : `Your verification code: ${input.code}`,
    text: [
      `${input.code}`,
      '',
      `Enter this code ${what}. It works once, for ${minutes} minutes.`,
      'If you did not ask for it, ignore this mail: nobody can use the code without your mailbox.',
    ].join('\n'),
  });
}
