import type { Outcome, VendorAnswer } from './types.ts';

const MAX_RETRY_AFTER_MS = 3_600_000;

/** `Retry-After` as delta-seconds or an HTTP date, in milliseconds from now; capped at an hour so a bad value cannot park a destination. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(at - now, 0), MAX_RETRY_AFTER_MS);
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** A short, single-line description of an answer for logs and dead letters (vendor bodies never carry our secrets). */
export function describe(answer: VendorAnswer, vendorMessage?: string): string {
  const detail = vendorMessage ?? answer.text.replace(/\s+/g, ' ').trim().slice(0, 300);
  return `HTTP ${answer.status}${detail ? `: ${detail}` : ''}`;
}

export function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The reading shared by every vendor for answers without a vendor-specific meaning: 2xx delivered; 408, 429 and
 * 5xx retried; 401 and 403 refuse the destination's credentials; any other status refuses this payload.
 */
export function genericOutcome(answer: VendorAnswer, vendorMessage?: string): Outcome {
  const { status } = answer;
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (isRetryableStatus(status))
    return { kind: 'retry', reason: describe(answer, vendorMessage), retryAfterMs: retryAfterMs(answer.headers) };
  if (status === 401 || status === 403)
    return { kind: 'rejected', reason: describe(answer, vendorMessage), scope: 'destination' };
  if (status >= 300 && status < 400)
    return {
      kind: 'rejected',
      reason: `HTTP ${status}: redirects are not followed (location ${answer.headers.get('location') ?? 'none'})`,
      scope: 'destination',
    };
  return { kind: 'rejected', reason: describe(answer, vendorMessage), scope: 'payload' };
}
