import type { LlmFinding, LlmOutcome, LlmProvider } from '../result/types.ts';
import type { LlmSettings } from './config.ts';
import { LLM_FACT_LIMITS, type LlmPageFacts } from './facts.ts';
import { LlmCallError } from './http.ts';
import { buildPrompt, MalformedAnswerError, parseJudgements, type Judgement } from './prompt.ts';
import { anthropicComplete } from './providers/anthropic.ts';
import { openaiComplete } from './providers/openai.ts';
import type { ProviderCall } from './providers/provider.ts';

export interface LlmRequest {
  provider: LlmProvider;
  /** null: the configured default model of the provider. */
  model: string | null;
}

/** Pages judged at once: the provider's rate limits, not our CPU, are the bound. */
const CONCURRENCY = 2;

const CRITERIA: Record<Judgement['check'], { successCriteria: string[]; element: string }> = {
  'image-alt': { successCriteria: ['1.1.1'], element: 'img' },
  'link-purpose': { successCriteria: ['2.4.4'], element: 'a' },
  'page-title': { successCriteria: ['2.4.2'], element: 'title' },
};

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function toFinding(j: Judgement, facts: LlmPageFacts, provider: LlmProvider, model: string, id: string): LlmFinding {
  const n = j.ref === 'title' ? 0 : Number(j.ref.split('-')[1]);
  const where =
    j.check === 'image-alt'
      ? { selector: facts.images[n]!.selector, html: facts.images[n]!.html }
      : j.check === 'link-purpose'
        ? { selector: facts.links[n]!.selector, html: facts.links[n]!.html }
        : { selector: 'head > title', html: `<title>${escapeText(facts.title)}</title>` };
  return {
    id,
    source: 'llm',
    check: j.check,
    provider,
    model,
    confidence: j.confidence,
    description: j.problem,
    suggestion: j.suggestion,
    successCriteria: CRITERIA[j.check].successCriteria,
    level: 'A',
    element: CRITERIA[j.check].element,
    selector: where.selector,
    html: where.html.slice(0, LLM_FACT_LIMITS.htmlChars),
    pageUrl: facts.url,
  };
}

function endpoint(
  provider: LlmProvider,
  settings: LlmSettings,
): { apiKey: string | undefined; baseUrl: string; model: string; variable: string } {
  return provider === 'openai'
    ? {
        apiKey: settings.openaiApiKey,
        baseUrl: settings.openaiBaseUrl,
        model: settings.openaiModel,
        variable: 'AUDIT_OPENAI_API_KEY',
      }
    : {
        apiKey: settings.anthropicApiKey,
        baseUrl: settings.anthropicBaseUrl,
        model: settings.anthropicModel,
        variable: 'AUDIT_ANTHROPIC_API_KEY',
      };
}

/**
 * Asks the provider about each page and returns what it judged. Never throws and never fails the audit: a
 * provider that is unconfigured, refuses, times out or answers nonsense leaves `status` partial or failed
 * with the reason in `error`, and the findings of the pages that did succeed.
 */
export async function assessWithLlm(
  pages: readonly LlmPageFacts[],
  request: LlmRequest,
  settings: LlmSettings,
  signal?: AbortSignal,
): Promise<LlmOutcome> {
  const { apiKey, baseUrl, model: defaultModel, variable } = endpoint(request.provider, settings);
  const model = request.model ?? defaultModel;
  const base = { provider: request.provider, model };
  if (!apiKey)
    return {
      ...base,
      status: 'failed',
      error: `no API key is configured for ${request.provider} (${variable})`,
      findings: [],
    };

  const perPage: (LlmFinding[] | Error)[] = new Array(pages.length);
  let next = 0;
  const worker = async () => {
    while (next < pages.length && !signal?.aborted) {
      const i = next++;
      const facts = pages[i]!;
      const call: ProviderCall = {
        prompt: buildPrompt(facts, settings.llmSendImages),
        model,
        baseUrl,
        apiKey,
        http: {
          provider: request.provider,
          secrets: [apiKey],
          deadline: Date.now() + settings.llmTimeoutMs,
          maxRetries: settings.llmMaxRetries,
          signal,
        },
      };
      try {
        const text =
          request.provider === 'openai'
            ? await openaiComplete(call, settings.openaiApi)
            : await anthropicComplete(call);
        perPage[i] = parseJudgements(text, facts).map((j, k) =>
          toFinding(j, facts, request.provider, model, `llm-${i}-${k}`),
        );
      } catch (e) {
        perPage[i] =
          e instanceof LlmCallError
            ? e
            : new Error(`${request.provider}: ${e instanceof MalformedAnswerError ? e.message : 'unexpected failure'}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, pages.length) }, worker));

  const findings = perPage.filter((p): p is LlmFinding[] => Array.isArray(p)).flat();
  const errors = perPage.filter((p): p is Error => p instanceof Error);
  const unjudged = pages.length - perPage.filter((p) => Array.isArray(p)).length;
  if (unjudged === 0) return { ...base, status: 'completed', error: null, findings };
  const reasons = [...new Set(errors.map((e) => e.message))];
  const reason = reasons.length > 0 ? reasons.slice(0, 3).join('; ') : 'the audit was stopped';
  const error = `${unjudged} of ${pages.length} pages were not judged: ${reason}`;
  return { ...base, status: unjudged === pages.length ? 'failed' : 'partial', error, findings };
}
