import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** Waits for the first item a predicate accepts, among those seen so far and those still to come. */
class Inbox<T> {
  readonly items: T[] = [];
  private waiters: { match: (t: T) => boolean; resolve: (t: T) => void }[] = [];
  push(item: T): void {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(item)) return true;
      w.resolve(item);
      return false;
    });
  }
  next(match: (t: T) => boolean): Promise<T> {
    const seen = this.items.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}

export interface ReceivedMail {
  to: string[];
  raw: string;
  subject: string;
}

/** The operator's mail relay: a local SMTP server (the `smtp-server` package) that keeps every message. */
export class MailCatcher {
  readonly inbox = new Inbox<ReceivedMail>();
  private server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 50 * 1024 * 1024,
    onData: (stream, session, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const subject = decodeHeader(/^Subject: (.*(?:\r?\n[ \t].*)*)/im.exec(raw)?.[1] ?? '');
        this.inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, subject });
        done();
      });
    },
  });
  url = '';
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
    return this;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=` / `?B?`), as nodemailer writes a subject with non-ASCII text. */
function decodeHeader(value: string): string {
  return value
    .replace(/\r?\n[ \t]/g, ' ')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    )
    .trim();
}

/** The parts of a MIME message: headers and decoded body of each leaf part (multipart walked recursively). */
export interface MimePart {
  headers: Record<string, string>;
  body: Buffer;
}

export function mimeParts(raw: string): MimePart[] {
  const split = raw.indexOf('\r\n\r\n') >= 0 ? raw.indexOf('\r\n\r\n') : raw.indexOf('\n\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((p) => !p.startsWith('--'))
      .flatMap((p) => mimeParts(p.replace(/^\r?\n/, '')));
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  const decoded =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? Buffer.from(
            body
              .replace(/=\r?\n/g, '')
              .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          )
        : Buffer.from(body, 'utf8');
  return [{ headers, body: decoded }];
}

export interface Hook {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/** An HTTP receiver: keeps every POST; `answers` says what to answer in turn (then 200). */
class Receiver {
  readonly inbox = new Inbox<Hook>();
  answers: number[] = [];
  private server: Server;
  url = '';
  private readonly accept: (hook: Hook) => { status: number; text: string };
  constructor(accept: (hook: Hook) => { status: number; text: string }) {
    this.accept = accept;
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const hook = { headers: req.headers, body, json };
        const planned = this.answers.shift();
        const verdict = this.accept(hook);
        const status = planned ?? verdict.status;
        if (status < 300) this.inbox.push(hook);
        else this.refused.push(hook);
        res.writeHead(status, { 'content-type': 'text/plain' }).end(planned ? 'try again' : verdict.text);
      });
    });
  }
  readonly refused: Hook[] = [];
  async start(path = '/hook'): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A customer's webhook endpoint, written from the Standard Webhooks specification alone: the HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{raw body}` keyed with the base64 bytes after `whsec_`, one of the header's
 * space-separated `v1,<base64>` signatures, compared in constant time, the timestamp within 5 minutes.
 */
export class StandardWebhookReceiver extends Receiver {
  secret = '';
  constructor() {
    super((hook) => (this.verifies(hook) ? { status: 204, text: '' } : { status: 401, text: 'bad signature' }));
  }
  verifies(hook: Hook): boolean {
    const id = String(hook.headers['webhook-id'] ?? '');
    const ts = String(hook.headers['webhook-timestamp'] ?? '');
    const sigs = String(hook.headers['webhook-signature'] ?? '').split(' ');
    if (!id || !/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
    const key = Buffer.from(this.secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${ts}.${hook.body}`).digest();
    return sigs.some((s) => {
      const [version, mac] = s.split(',');
      if (version !== 'v1' || !mac) return false;
      const got = Buffer.from(mac, 'base64');
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
  }
}

/**
 * Slack's incoming webhook as its documentation describes it: a JSON body with `text` (required; `no_text` otherwise)
 * and optional `blocks`; success is 200 with the body `ok`, a bad payload 400 `invalid_payload`.
 */
export class SlackWebhookReceiver extends Receiver {
  constructor() {
    super((hook) => {
      if (hook.json === undefined || typeof hook.json !== 'object') return { status: 400, text: 'invalid_payload' };
      if (typeof hook.json.text !== 'string' || !hook.json.text) return { status: 400, text: 'no_text' };
      if (hook.json.blocks !== undefined && !Array.isArray(hook.json.blocks))
        return { status: 400, text: 'invalid_blocks' };
      return { status: 200, text: 'ok' };
    });
  }
}
