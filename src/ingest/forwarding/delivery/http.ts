import type { HttpRequest, VendorAnswer } from '../vendors/types.ts';

const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'platform-ingest-forwarder/1';

export class SendError extends Error {}

/**
 * One POST with a hard time limit covering connection, upload and the answer, so a slow or silent vendor costs
 * at most `timeoutMs`. Redirects are not followed (a POST of events should not wander). Only the first 64 KB
 * of the answer are read: enough for any error body.
 */
export async function post(request: HttpRequest, timeoutMs: number, stop: AbortSignal): Promise<VendorAnswer> {
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { 'user-agent': USER_AGENT, ...request.headers },
      body: request.body,
      redirect: 'manual',
      signal,
    });
    return { status: response.status, headers: response.headers, text: await readCapped(response) };
  } catch (err) {
    if (stop.aborted) throw new SendError('stopped while sending');
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError' || signal.aborted) throw new SendError(`no answer within ${timeoutMs} ms`);
    throw new SendError(`network error: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
  }
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < MAX_ANSWER_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}
