import { bool, int, oneOf, optionalStr, str, url } from '../../kit/config.ts';

/** LLM assistance: where each provider is, its key and default model, and how long to wait. */
export const llmVariables = {
  openaiApiKey: optionalStr('AUDIT_OPENAI_API_KEY', {
    secret: true,
    doc: 'API key for `llm.provider: "openai"`. Unset: audits asking for OpenAI complete without LLM findings and say why.',
  }),
  openaiBaseUrl: url('AUDIT_OPENAI_BASE_URL', ['https:', 'http:'], {
    default: 'https://api.openai.com/v1',
    doc: 'Base URL of the OpenAI API (or a compatible server).',
  }),
  openaiApi: oneOf('AUDIT_OPENAI_API', ['chat', 'responses'], {
    default: 'chat',
    doc: 'OpenAI API used: `chat` (Chat Completions, `POST /chat/completions`, also spoken by most compatible servers) or `responses` (`POST /responses`).',
  }),
  openaiModel: str('AUDIT_OPENAI_MODEL', { default: 'gpt-4.1-mini', doc: 'OpenAI model when the request names none.' }),
  anthropicApiKey: optionalStr('AUDIT_ANTHROPIC_API_KEY', {
    secret: true,
    doc: 'API key for `llm.provider: "anthropic"`. Unset: audits asking for Anthropic complete without LLM findings and say why.',
  }),
  anthropicBaseUrl: url('AUDIT_ANTHROPIC_BASE_URL', ['https:', 'http:'], {
    default: 'https://api.anthropic.com',
    doc: 'Base URL of the Anthropic API (`/v1/messages` is appended).',
  }),
  anthropicModel: str('AUDIT_ANTHROPIC_MODEL', {
    default: 'claude-haiku-4-5',
    doc: 'Anthropic model when the request names none.',
  }),
  llmTimeoutMs: int('AUDIT_LLM_TIMEOUT_MS', {
    default: 60_000,
    min: 1_000,
    max: 600_000,
    doc: 'Time limit of one LLM request (one page), retries included.',
  }),
  llmMaxRetries: int('AUDIT_LLM_MAX_RETRIES', {
    default: 2,
    min: 0,
    max: 10,
    doc: 'Retries of an LLM request answered 429, 500, 502, 503, 504 or 529 (honouring `retry-after` within the time limit).',
  }),
  llmSendImages: bool('AUDIT_LLM_SEND_IMAGES', {
    default: true,
    doc: 'Send images to the provider (inline when the engine read them, else by URL) so the model can compare them with their alternative text. `false`: the model judges alt text from its wording and context only.',
  }),
};

export interface LlmSettings {
  openaiApiKey: string | undefined;
  openaiBaseUrl: string;
  openaiApi: 'chat' | 'responses';
  openaiModel: string;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string;
  anthropicModel: string;
  llmTimeoutMs: number;
  llmMaxRetries: number;
  llmSendImages: boolean;
}
