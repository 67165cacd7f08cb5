import type { Page } from 'playwright-core';
import type { AuditResult } from '../result/types.ts';
import { assessWithLlm, type LlmRequest } from './assess.ts';
import type { LlmSettings } from './config.ts';
import { LLM_FACT_LIMITS, type LlmPageFacts } from './facts.ts';

/**
 * Runs in the audited page (as a string: the project's TypeScript has no DOM types). Reads the title, the
 * main text, visible images with their alt text and nearby words, and links with their accessible text;
 * same-origin images small enough are read through a canvas so the provider need not fetch them.
 */
const COLLECT = `(limits) => {
  const clip = (s, n) => { const t = (s || '').replace(/\\s+/g, ' ').trim(); return t.length > n ? t.slice(0, n) + '…' : t; };
  const cssEscape = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : s.replace(/[^a-zA-Z0-9_-]/g, '\\\\$&'));
  const selectorOf = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 6; e = e.parentElement) {
      if (e.id) { parts.unshift('#' + cssEscape(e.id)); break; }
      const tag = e.tagName.toLowerCase();
      const parent = e.parentElement;
      if (!parent) { parts.unshift(tag); break; }
      const same = Array.from(parent.children).filter((c) => c.tagName === e.tagName);
      parts.unshift(same.length > 1 ? tag + ':nth-of-type(' + (same.indexOf(e) + 1) + ')' : tag);
    }
    return parts.join(' > ');
  };
  const html = (el) => clip(el.outerHTML, limits.htmlChars);
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const contextOf = (el) => clip((el.closest('figure, p, li, td, section, article') || el.parentElement || el).textContent, limits.contextChars);
  const main = document.querySelector('main, [role=main]') || document.body;
  const images = Array.from(document.images).filter(visible).slice(0, limits.images).map((img) => {
    const fact = { src: img.currentSrc || img.src, alt: img.getAttribute('alt'), selector: selectorOf(img), html: html(img), context: contextOf(img) };
    try {
      if (new URL(fact.src).origin === location.origin && img.complete && img.naturalWidth > 0) {
        const scale = Math.min(1, 512 / Math.max(img.naturalWidth, img.naturalHeight));
        const canvas = document.createElement('canvas');
        canvas.width = Math.max(1, Math.round(img.naturalWidth * scale));
        canvas.height = Math.max(1, Math.round(img.naturalHeight * scale));
        canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
        const base64 = canvas.toDataURL('image/png').split(',')[1];
        if (base64 && base64.length <= limits.imageBase64Bytes) fact.data = { mediaType: 'image/png', base64 };
      }
    } catch (e) { /* a tainted canvas or a bad URL: judged by its URL and text */ }
    return fact;
  });
  const links = Array.from(document.querySelectorAll('a[href]')).filter(visible).slice(0, limits.links).map((a) => ({
    href: a.href,
    text: clip(a.getAttribute('aria-label') || a.innerText || Array.from(a.querySelectorAll('img[alt]')).map((i) => i.alt).join(' '), 200),
    selector: selectorOf(a),
    html: html(a),
    context: contextOf(a),
  }));
  return { url: location.href, title: document.title, lang: document.documentElement.getAttribute('lang'), mainText: clip(main.innerText, limits.mainTextChars), images, links };
}`;

/** What the LLM needs from an audited page, read after axe while the page is still open. */
export async function collectLlmPageFacts(page: Page): Promise<LlmPageFacts> {
  return (await page.evaluate(`(${COLLECT})(${JSON.stringify(LLM_FACT_LIMITS)})`)) as LlmPageFacts;
}

/**
 * Adds the LLM's judgements to a completed result when the audit asked for them. The result's findings,
 * stats, score and conformance are left as they are; a failing provider shows in `result.llm.status/error`.
 */
export async function withLlmAssessment(result: AuditResult, facts: readonly LlmPageFacts[], settings: LlmSettings, signal?: AbortSignal): Promise<AuditResult> {
  const { enabled, provider, model } = result.config.llm;
  if (!enabled) return result;
  // No provider named: the one the operator configured a key for (OpenAI when both or neither).
  const request: LlmRequest = { provider: provider ?? (!settings.openaiApiKey && settings.anthropicApiKey ? 'anthropic' : 'openai'), model };
  return { ...result, llm: await assessWithLlm(facts, request, settings, signal) };
}
