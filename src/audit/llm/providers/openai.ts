import { LlmCallError, postJson } from '../http.ts';
import type { Prompt } from '../prompt.ts';
import type { ProviderCall } from './provider.ts';

function errorMessage(body: unknown): string | undefined {
  const m = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof m === 'string' ? m.slice(0, 300) : undefined;
}

function imageUrl(part: Prompt['parts'][number]): string | undefined {
  if (part.type !== 'image') return undefined;
  return 'url' in part ? part.url : `data:${part.mediaType};base64,${part.base64}`;
}

/** Chat Completions: `POST {base}/chat/completions`, answer in `choices[0].message.content`. */
async function chat(call: ProviderCall): Promise<string> {
  const content = call.prompt.parts.map((p) =>
    p.type === 'text'
      ? { type: 'text', text: p.text }
      : { type: 'image_url', image_url: { url: imageUrl(p)!, detail: 'low' } },
  );
  const body = await postJson(
    `${call.baseUrl.replace(/\/$/, '')}/chat/completions`,
    {
      model: call.model,
      messages: [
        { role: 'system', content: call.prompt.system },
        { role: 'user', content },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
    },
    { ...call.http, headers: { authorization: `Bearer ${call.apiKey}` }, errorMessage },
  );
  const choice = (
    body as { choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[] }
  ).choices?.[0];
  if (typeof choice?.message?.refusal === 'string' && choice.message.refusal)
    throw new LlmCallError(`openai: the model refused: ${choice.message.refusal.slice(0, 200)}`, 200);
  const text = choice?.message?.content;
  if (typeof text !== 'string') throw new LlmCallError('openai answered without a message', 200);
  return text;
}

/** Responses API: `POST {base}/responses`, answer in the `output_text` parts of the `message` items of `output`. */
async function responses(call: ProviderCall): Promise<string> {
  const content = call.prompt.parts.map((p) =>
    p.type === 'text'
      ? { type: 'input_text', text: p.text }
      : { type: 'input_image', image_url: imageUrl(p)!, detail: 'low' },
  );
  const body = await postJson(
    `${call.baseUrl.replace(/\/$/, '')}/responses`,
    {
      model: call.model,
      instructions: call.prompt.system,
      input: [{ role: 'user', content }],
      text: { format: { type: 'json_object' } },
      store: false,
    },
    { ...call.http, headers: { authorization: `Bearer ${call.apiKey}` }, errorMessage },
  );
  const out = body as {
    status?: unknown;
    error?: { message?: unknown } | null;
    output?: { type?: unknown; content?: { type?: unknown; text?: unknown }[] }[];
  };
  if (out.status === 'failed' || out.status === 'incomplete')
    throw new LlmCallError(
      `openai: the response is ${String(out.status)}${typeof out.error?.message === 'string' ? `: ${out.error.message.slice(0, 200)}` : ''}`,
      200,
    );
  const text = (out.output ?? [])
    .filter((o) => o.type === 'message')
    .flatMap((o) => o.content ?? [])
    .filter((c) => c.type === 'output_text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('');
  if (!text) throw new LlmCallError('openai answered without output text', 200);
  return text;
}

export function openaiComplete(call: ProviderCall, api: 'chat' | 'responses'): Promise<string> {
  return api === 'responses' ? responses(call) : chat(call);
}
