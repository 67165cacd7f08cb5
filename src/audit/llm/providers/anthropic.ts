import { LlmCallError, postJson } from '../http.ts';
import type { ProviderCall } from './provider.ts';

const API_VERSION = '2023-06-01';

function errorMessage(body: unknown): string | undefined {
  const e = (body as { error?: { type?: unknown; message?: unknown } } | null)?.error;
  if (!e) return undefined;
  return (
    [typeof e.type === 'string' ? e.type : '', typeof e.message === 'string' ? e.message.slice(0, 300) : '']
      .filter(Boolean)
      .join(': ') || undefined
  );
}

/** Messages API: `POST {base}/v1/messages` with `x-api-key` and `anthropic-version`; the answer is the `text` blocks of `content`. */
export async function anthropicComplete(call: ProviderCall): Promise<string> {
  const content = call.prompt.parts.map((p) => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    return 'url' in p
      ? { type: 'image', source: { type: 'url', url: p.url } }
      : { type: 'image', source: { type: 'base64', media_type: p.mediaType, data: p.base64 } };
  });
  const body = await postJson(
    `${call.baseUrl.replace(/\/$/, '')}/v1/messages`,
    {
      model: call.model,
      max_tokens: 4096,
      temperature: 0,
      system: call.prompt.system,
      messages: [{ role: 'user', content }],
    },
    { ...call.http, headers: { 'x-api-key': call.apiKey, 'anthropic-version': API_VERSION }, errorMessage },
  );
  const out = body as { type?: unknown; content?: { type?: unknown; text?: unknown }[]; stop_reason?: unknown };
  if (out.type === 'error') throw new LlmCallError(`anthropic: ${errorMessage(out) ?? 'error'}`, 200);
  const text = (out.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('');
  if (!text)
    throw new LlmCallError(
      `anthropic answered without text${out.stop_reason ? ` (stop_reason ${String(out.stop_reason)})` : ''}`,
      200,
    );
  return text;
}
