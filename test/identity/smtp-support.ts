import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  to: string[];
  text: string;
}

/**
 * A local SMTP server standing in for the operator's mail relay (the `smtp-server` package): every message it receives
 * is kept in order, its quoted-printable soft breaks and escapes undone (as UTF-8) so a test can read a link or a code.
 * `port`: on that port (a relay coming back where the service expects it), else on any free one.
 */
export async function startSmtp(port = 0): Promise<{
  url: string;
  mails: Mail[];
  /** The next message to arrive. */
  next(): Promise<Mail>;
  close(): Promise<void>;
}> {
  const mails: Mail[] = [];
  let waiters: ((m: Mail) => void)[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        // Byte by byte (latin1), then read as UTF-8: an escaped accented letter is two escapes of one character.
        const bytes = Buffer.concat(chunks)
          .toString('latin1')
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        const text = Buffer.from(bytes, 'latin1').toString('utf8');
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), text };
        mails.push(mail);
        const ready = waiters;
        waiters = [];
        for (const w of ready) w(mail);
        done();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(port, '127.0.0.1', resolve);
  });
  const listening = (smtp.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${listening}`,
    mails,
    next: () => new Promise<Mail>((resolve) => waiters.push(resolve)),
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
