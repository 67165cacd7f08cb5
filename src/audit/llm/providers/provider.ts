import type { PostOptions } from '../http.ts';
import type { Prompt } from '../prompt.ts';

/** One request to a provider: the prompt, the model, where, with which key, and the HTTP limits. */
export interface ProviderCall {
  prompt: Prompt;
  model: string;
  baseUrl: string;
  apiKey: string;
  http: Pick<PostOptions, 'provider' | 'secrets' | 'deadline' | 'maxRetries' | 'signal'>;
}
