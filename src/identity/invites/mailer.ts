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

/** One plain-text message; `link` is the one-time link it carries, logged only with its token redacted. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  link: string;
  /** Names the mail in the log ("invite", "password reset"). */
  kind: string;
}

export interface Mailer {
  /** Sends one message; false when no SMTP server is configured (logged, nothing sent). */
  send(mail: Mail): Promise<boolean>;
  /** Sends the invitation; false when no SMTP server is configured (the link is then only in the API's answer). */
  sendInvite(mail: InviteMail): Promise<boolean>;
}

/** Mail over SMTP (IDENTITY_SMTP_URL). The log names the recipient and the link with its token redacted, never the token. */
export function smtpMailer(smtpUrl: string | undefined, from: string, log: FastifyBaseLogger): Mailer {
  const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined;
  const send = async (mail: Mail): Promise<boolean> => {
    const logged = { to: mail.to, link: redactUrl(mail.link) };
    if (!transport) {
      log.warn(logged, `${mail.kind} mail not sent: IDENTITY_SMTP_URL is not set`);
      return false;
    }
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    log.info(logged, `${mail.kind} mail sent`);
    return true;
  };
  return {
    send,
    sendInvite(mail) {
      const intro = `${mail.inviterName ?? 'Someone'} invited you to join ${mail.organizationName}.`;
      return send({
        kind: 'invite',
        to: mail.to,
        link: mail.link,
        subject: `Invitation to join ${mail.organizationName}`,
        text: [
          intro,
          mail.message ? `\n${mail.message}\n` : '',
          `Accept or decline: ${mail.link}`,
          `The invitation expires at ${mail.expiresAt}.`,
        ].join('\n'),
      });
    },
  };
}
