import type { Mailer as KitMailer } from '../../kit/outbound/mail.ts';

export interface InviteMail {
  to: string;
  organizationName: string;
  inviterName: string | null;
  message: string | null;
  link: string;
  expiresAt: string;
}

export interface Mailer {
  /** Sends the invitation; false when no SMTP server is configured (the link is then only in the API's answer). */
  sendInvite(mail: InviteMail): Promise<boolean>;
}

/** The invitation mail over the platform's SMTP mailer; the log names the link with its token redacted. */
export function inviteMailer(mailer: KitMailer): Mailer {
  return {
    sendInvite(mail) {
      const intro = `${mail.inviterName ?? 'Someone'} invited you to join ${mail.organizationName}.`;
      return mailer.send({
        to: mail.to,
        subject: `Invitation to join ${mail.organizationName}`,
        text: [
          intro,
          mail.message ? `\n${mail.message}\n` : '',
          `Accept or decline: ${mail.link}`,
          `The invitation expires at ${mail.expiresAt}.`,
        ].join('\n'),
        secretLinks: [mail.link],
      });
    },
  };
}
