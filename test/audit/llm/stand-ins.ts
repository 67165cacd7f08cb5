import { isObject, parseJsonBody, StandIn, type Answer, type Received } from '../../support/vendors/stand-in.ts';

/** What a stand-in model answers to a prompt's text (the page facts as the prompt lists them). */
export type Judge = (promptText: string) => string;

/**
 * A deterministic "model": flags alt text that is a file name, link text "click here"/"read more" and the
 * title "Page N", and passes everything else, answering in the JSON the prompt asks for.
 */
export const fileNameJudge: Judge = (text) => {
  const judgements: unknown[] = [];
  for (const m of text.matchAll(/^(img-\d+): alt="([^"]*)"/gm)) {
    const bad = /\.(jpe?g|png|gif|webp)$/i.test(m[2]!);
    judgements.push({
      ref: m[1],
      ok: !bad,
      confidence: bad ? 0.86 : 0.9,
      problem: bad ? `The alt text "${m[2]}" is a file name.` : '',
      suggestion: bad ? 'Red running shoes' : null,
    });
  }
  for (const m of text.matchAll(/^(link-\d+): text="([^"]*)"/gm)) {
    const bad = /^(click here|read more)$/i.test(m[2]!);
    judgements.push({
      ref: m[1],
      ok: !bad,
      confidence: 0.7,
      problem: bad ? `"${m[2]}" does not say where the link goes.` : '',
      suggestion: bad ? 'Read the returns policy' : null,
    });
  }
  const title = /^Title: (.*)$/m.exec(text)?.[1] ?? '';
  judgements.push({
    ref: 'title',
    ok: !/^Page \d+$/.test(title),
    confidence: 0.95,
    problem: 'The title does not describe the page.',
    suggestion: 'Shoes – Shop',
  });
  return JSON.stringify({ judgements });
};

function userText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p) => isObject(p) && (p.type === 'text' || p.type === 'input_text'))
    .map((p) => String((p as { text: unknown }).text))
    .join('\n');
}

/**
 * OpenAI's API under `/v1`: Chat Completions (`POST /v1/chat/completions`) and Responses (`POST /v1/responses`),
 * Bearer keys, errors as `{error:{message,type,param,code}}` (a wrong key is echoed in the 401 message).
 */
export class OpenAiStandIn extends StandIn {
  protected readonly maxBodyBytes = 50 * 1024 * 1024;
  judge: Judge = fileNameJudge;
  private readonly apiKey: string;

  constructor(apiKey: string) {
    super();
    this.apiKey = apiKey;
  }

  protected tooLarge(): Answer {
    return {
      status: 413,
      body: { error: { message: 'Request too large', type: 'invalid_request_error', param: null, code: null } },
    };
  }

  protected answer(request: Received): Answer {
    const path = request.url.pathname;
    if (request.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/responses')) {
      return {
        status: 404,
        body: {
          error: {
            message: `Invalid URL (${request.method} ${path})`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      };
    }
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (key !== this.apiKey) {
      return {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${key ?? ''}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        },
      };
    }
    const parsed = parseJsonBody(request);
    if (!parsed.ok || !isObject(parsed.value))
      return {
        status: 400,
        body: {
          error: {
            message: 'We could not parse the JSON body of your request.',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      };
    const body = parsed.value;
    if (typeof body.model !== 'string')
      return {
        status: 400,
        body: {
          error: {
            message: 'you must provide a model parameter',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      };
    if (path === '/v1/chat/completions') {
      if (!Array.isArray(body.messages))
        return {
          status: 400,
          body: {
            error: {
              message: "Missing required parameter: 'messages'.",
              type: 'invalid_request_error',
              param: 'messages',
              code: 'missing_required_parameter',
            },
          },
        };
      const user = (body.messages as Record<string, unknown>[]).find((m) => m.role === 'user');
      return {
        status: 200,
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_763_800_000,
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: this.judge(userText(user?.content)), refusal: null },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
        },
      };
    }
    if (!Array.isArray(body.input))
      return {
        status: 400,
        body: {
          error: {
            message: "Missing required parameter: 'input'.",
            type: 'invalid_request_error',
            param: 'input',
            code: 'missing_required_parameter',
          },
        },
      };
    const user = (body.input as Record<string, unknown>[]).find((m) => m.role === 'user');
    return {
      status: 200,
      body: {
        id: 'resp_1',
        object: 'response',
        created_at: 1_763_800_000,
        status: 'completed',
        model: body.model,
        error: null,
        output: [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: this.judge(userText(user?.content)), annotations: [] }],
          },
        ],
        usage: { input_tokens: 100, output_tokens: 50, total_tokens: 150 },
      },
    };
  }
}

/**
 * Anthropic's Messages API `POST /v1/messages`: `x-api-key` and `anthropic-version` headers, `model`,
 * `max_tokens` and `messages` required; errors as `{type:"error", error:{type, message}}`.
 */
export class AnthropicStandIn extends StandIn {
  protected readonly maxBodyBytes = 32 * 1024 * 1024;
  judge: Judge = fileNameJudge;
  private readonly apiKey: string;

  constructor(apiKey: string) {
    super();
    this.apiKey = apiKey;
  }

  protected tooLarge(): Answer {
    return {
      status: 413,
      body: {
        type: 'error',
        error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
      },
    };
  }

  protected answer(request: Received): Answer {
    const error = (status: number, type: string, message: string): Answer => ({
      status,
      body: { type: 'error', error: { type, message } },
    });
    if (request.method !== 'POST' || request.url.pathname !== '/v1/messages')
      return error(404, 'not_found_error', 'Not found');
    if (request.headers['x-api-key'] !== this.apiKey) return error(401, 'authentication_error', 'invalid x-api-key');
    if (!request.headers['anthropic-version'])
      return error(400, 'invalid_request_error', 'anthropic-version: header is required');
    const parsed = parseJsonBody(request);
    if (!parsed.ok || !isObject(parsed.value))
      return error(400, 'invalid_request_error', 'There was an issue with the request body: invalid JSON');
    const body = parsed.value;
    if (typeof body.model !== 'string') return error(400, 'invalid_request_error', 'model: Field required');
    if (typeof body.max_tokens !== 'number') return error(400, 'invalid_request_error', 'max_tokens: Field required');
    if (!Array.isArray(body.messages)) return error(400, 'invalid_request_error', 'messages: Field required');
    const user = (body.messages as Record<string, unknown>[]).find((m) => m.role === 'user');
    return {
      status: 200,
      body: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [{ type: 'text', text: this.judge(userText(user?.content)) }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 50 },
      },
    };
  }
}
