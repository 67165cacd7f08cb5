import { createHmac } from 'node:crypto';
import { safeEqual } from '../../../kit/crypto.ts';
import { genericOutcome } from './answers.ts';
import type { DestinationTarget, VendorAdapter } from './types.ts';

export const SIGNATURE_HEADER = 'x-ingest-signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the destination's secret>` */
export function signWebhook(secret: string, rawBody: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * What a receiver does with the header: recompute the HMAC over the raw body and refuse a timestamp further than
 * `toleranceSeconds` from its clock, so a captured request cannot be replayed later.
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1');
  if (!Number.isSafeInteger(t) || !v1 || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  return safeEqual(expected, v1);
}

export const webhookAdapter: VendorAdapter = {
  kind: 'webhook',
  limits: { maxEvents: 500, maxBytes: 5 * 1024 * 1024, maxEventBytes: 5 * 1024 * 1024 },
  record: (event) => JSON.stringify(event),
  envelopeBytes: () => '{"events":[]}'.length,
  request(records, target: DestinationTarget) {
    const body = `{"events":[${records.join(',')}]}`;
    return {
      url: target.baseUrl,
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signWebhook(target.credentials.secret ?? '', body),
      },
      body,
    };
  },
  interpret: (answer) => genericOutcome(answer),
};
