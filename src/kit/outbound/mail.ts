import type { Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import { redactUrl } from '../logger.ts';

export interface OutgoingMail {
  to: string | readonly string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: readonly { filename: string; content: Buffer | string; contentType: string; cid?: string }[];
  /** The language of the text (`Content-Language`, RFC 3282), when the mail was written in the reader's. */
  language?: string | undefined;
  /** Links in the mail that carry a secret (a reset or sign-in link): the log names them redacted, never whole. */
  secretLinks?: readonly string[];
}

export interface Mailer {
  /** Whether an SMTP server is configured: without one, nothing is sent and the caller says so. */
  readonly configured: boolean;
  /** Sends the mail; false when no SMTP server is configured. A refusal by the server throws. */
  send(mail: OutgoingMail): Promise<boolean>;
}

/**
 * nodemailer waits up to 2 minutes to connect and 10 for a silent server; a hung SMTP server would then hold a queued
 * mail past its claim (identity's courier holds one for 2 minutes, then another instance may send it again) and a
 * service's close as long. A server that answers at all answers well within these.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 40_000 };

/** Mail over SMTP (a `smtp://` or `smtps://` URL). The log names recipients and subject, never the body. */
export function smtpMailer(smtpUrl: string | undefined, from: string, log: FastifyBaseLogger, setting: string): Mailer {
  // nodemailer is loaded at the first mail, not at start: most processes of a service never send one, and its
  // modules are ~5 MB of heap in each (bench/README.md, audit memory, issue 33).
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS }),
    ));
  return {
    configured: Boolean(smtpUrl),
    async send(mail) {
      const logged = {
        to: mail.to,
        subject: mail.subject,
        ...(mail.secretLinks?.length ? { links: mail.secretLinks.map(redactUrl) } : {}),
      };
      if (!smtpUrl) {
        log.warn(logged, `mail not sent: ${setting} is not set`);
        return false;
      }
      await (await open()).sendMail({
        from,
        to: Array.isArray(mail.to) ? [...mail.to] : (mail.to as string),
        subject: mail.subject,
        text: mail.text,
        ...(mail.language ? { headers: { 'Content-Language': mail.language } } : {}),
        ...(mail.html ? { html: mail.html } : {}),
        ...(mail.attachments
          ? {
              attachments: mail.attachments.map((a) => ({
                filename: a.filename,
                content: a.content,
                contentType: a.contentType,
                ...(a.cid ? { cid: a.cid } : {}),
              })),
            }
          : {}),
      });
      log.info(logged, 'mail sent');
      return true;
    },
  };
}
