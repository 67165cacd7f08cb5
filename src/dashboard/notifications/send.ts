import type { Mailer } from '../../kit/outbound/mail.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { guardedPost, OutboundError } from '../../kit/outbound/post.ts';
import { webhookHeaders } from '../../kit/outbound/standard-webhooks.ts';
import { openSealedString } from '../../kit/crypto.ts';
import type { AlertPayload } from '../alerts/message.ts';
import { htmlOf, slackBodyOf, subjectOf, textOf } from './compose.ts';
import type { ChannelRow } from './store.ts';

export interface SendDeps {
  mailer: Mailer;
  policy: AddressPolicy;
  secretKey: Buffer;
  timeoutMs: number;
  userAgent: string;
}

/** How a delivery attempt went: sent, or failed with a message safe to show, and whether trying again can help. */
export type SendResult =
  | { ok: true; detail: string }
  | { ok: false; permanent: boolean; detail: string; retryAfterMs?: number | undefined };

export const URL_CONTEXT = 'notification_channels.url';
export const SECRET_CONTEXT = 'notification_channels.secret';

/** Sends one notification to one channel. Never throws: every failure is a result the outbox records. */
export async function sendToChannel(
  deps: SendDeps,
  channel: ChannelRow,
  eventId: string,
  payload: AlertPayload,
): Promise<SendResult> {
  try {
    if (channel.kind === 'email') return await sendMail(deps, channel, payload);
    const url = openSealedString(deps.secretKey, channel.url_sealed!, URL_CONTEXT);
    if (channel.kind === 'slack') return await post(deps, url, {}, JSON.stringify(slackBodyOf(payload)), 'slack');
    const secret = openSealedString(deps.secretKey, channel.secret_sealed!, SECRET_CONTEXT);
    const body = JSON.stringify(payload);
    const headers = webhookHeaders([secret], { id: eventId, timestamp: Math.floor(Date.now() / 1000), body });
    return await post(deps, url, headers, body, 'webhook');
  } catch (err) {
    if (err instanceof OutboundError) return { ok: false, permanent: err.refused, detail: err.message };
    return { ok: false, permanent: false, detail: `could not send: ${(err as Error).message}` };
  }
}

async function sendMail(deps: SendDeps, channel: ChannelRow, payload: AlertPayload): Promise<SendResult> {
  if (!deps.mailer.configured)
    return { ok: false, permanent: true, detail: 'no SMTP server is configured (DASHBOARD_SMTP_URL)' };
  try {
    await deps.mailer.send({
      to: channel.addresses,
      subject: subjectOf(payload),
      text: textOf(payload),
      html: htmlOf(payload),
    });
  } catch (err) {
    const code = (err as { responseCode?: number }).responseCode;
    return {
      ok: false,
      permanent: code !== undefined && code >= 500,
      detail: `the SMTP server refused the mail${code ? ` (${code})` : ''}`,
    };
  }
  return { ok: true, detail: `mailed to ${channel.addresses.length} address(es)` };
}

/** 2xx is success; 408, 425, 429 and 5xx are worth another try; other answers (410 Gone, a 3xx) are final. */
async function post(
  deps: SendDeps,
  url: string,
  headers: Record<string, string>,
  body: string,
  kind: 'slack' | 'webhook',
): Promise<SendResult> {
  const answer = await guardedPost(
    { url, headers: { 'content-type': 'application/json', ...headers }, body },
    deps.policy,
    { timeoutMs: deps.timeoutMs, userAgent: deps.userAgent },
  );
  if (answer.status >= 200 && answer.status < 300) return { ok: true, detail: `answered ${answer.status}` };
  const retry = answer.status >= 500 || [408, 425, 429].includes(answer.status);
  const said = answer.text.trim().slice(0, 200);
  return {
    ok: false,
    permanent: !retry,
    detail: `the ${kind === 'slack' ? 'Slack webhook' : 'webhook'} answered ${answer.status}${said ? `: ${said}` : ''}`,
    retryAfterMs: answer.retryAfterMs,
  };
}
