import type { Mailer } from '../../kit/outbound/mail.ts';
import { guardedPost, OutboundError } from '../../kit/outbound/post.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { webhookHeaders } from '../../kit/outbound/standard-webhooks.ts';
import { openSealedString, seal } from '../../kit/crypto.ts';
import { noticeMail, type NoticePayload } from './message.ts';
import type { Channel } from './store.ts';

export interface SendDeps {
  mailer: Mailer;
  /** The webhooks' address policy (AUDIT_WEBHOOK_ALLOW_HOSTS). */
  webhookPolicy: AddressPolicy;
  secretKey: Buffer;
  userAgent: string;
}

/** Why one attempt failed; `retry` false when trying again cannot help (the address refused, mail not configured). */
export class SendError extends Error {
  readonly retry: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retry: boolean, retryAfterMs?: number) {
    super(message);
    this.retry = retry;
    this.retryAfterMs = retryAfterMs;
  }
}

/** A webhook's secret is sealed for its site: it cannot be moved to another site's row and still open. */
const sealContext = (siteId: string) => `audit-site-webhook\0${siteId}`;
export const sealWebhookSecret = (key: Buffer, siteId: string, secret: string) =>
  seal(key, secret, sealContext(siteId));
const openWebhookSecret = (key: Buffer, siteId: string, sealed: string) =>
  openSealedString(key, sealed, sealContext(siteId));

const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Sends one notice: a mail, or a signed POST (Standard Webhooks: `webhook-id` is the delivery's id, the same on every
 * attempt, so a receiver can drop a repeat). Throws SendError when it did not go through.
 */
export async function sendNotice(
  deps: SendDeps,
  notice: { id: string; siteId: string; channel: Channel; target: string; payload: NoticePayload },
  webhookSecretSealed: string | null,
): Promise<void> {
  if (notice.channel === 'email') {
    let sent: boolean;
    try {
      sent = await deps.mailer.send({ to: notice.target, ...noticeMail(notice.payload) });
    } catch (err) {
      throw new SendError(`the mail server refused or could not be reached: ${(err as Error).message}`, true);
    }
    if (!sent) throw new SendError('mail is not configured on this server (AUDIT_SMTP_URL is not set)', false);
    return;
  }
  if (!webhookSecretSealed) throw new SendError('the webhook has no signing secret any more', false);
  const secret = openWebhookSecret(deps.secretKey, notice.siteId, webhookSecretSealed);
  const body = JSON.stringify(notice.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  let answer: Awaited<ReturnType<typeof guardedPost>>;
  try {
    answer = await guardedPost(
      { url: notice.target, headers: webhookHeaders([secret], { id: notice.id, timestamp, body }), body },
      deps.webhookPolicy,
      { timeoutMs: WEBHOOK_TIMEOUT_MS, userAgent: deps.userAgent },
    );
  } catch (err) {
    if (err instanceof OutboundError) throw new SendError(err.message, !err.refused);
    throw err;
  }
  if (answer.status >= 200 && answer.status < 300) return;
  const retry = answer.status === 408 || answer.status === 429 || answer.status >= 500;
  throw new SendError(`the receiver answered HTTP ${answer.status}`, retry, answer.retryAfterMs);
}
