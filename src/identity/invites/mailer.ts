import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import { redactUrl } from '../../kit/logger.ts';

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

/** Mail over SMTP (IDENTITY_SMTP_URL). The log names the recipient and the link with its token redacted, never the token. */
export function smtpMailer(smtpUrl: string | undefined, from: string, log: FastifyBaseLogger): Mailer {
  const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined;
  return {
    async sendInvite(mail) {
      const logged = { to: mail.to, link: redactUrl(mail.link) };
      if (!transport) {
        log.warn(logged, 'invite mail not sent: IDENTITY_SMTP_URL is not set');
        return false;
      }
      const intro = `${mail.inviterName ?? 'Someone'} invited you to join ${mail.organizationName}.`;
      await transport.sendMail({
        from,
        to: mail.to,
        subject: `Invitation to join ${mail.organizationName}`,
        text: [
          intro,
          mail.message ? `\n${mail.message}\n` : '',
          `Accept or decline: ${mail.link}`,
          `The invitation expires at ${mail.expiresAt}.`,
        ].join('\n'),
      });
      log.info(logged, 'invite mail sent');
      return true;
    },
  };
}
