import type { Page } from 'playwright-core';
import { LLM_FACT_LIMITS, type LlmPageFacts } from '../llm/facts.ts';

/**
 * Runs in the page (as a string: the project's TypeScript has no DOM types). Reads what a language model
 * needs to judge alternative text, link purpose and the title: the page's own words, capped in size.
 */
const COLLECT = `(limits) => {
  const clip = (s, n) => { s = (s || '').replace(/\\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) + '…' : s; };
  const selectorOf = (el) => {
    if (el.id && /^[A-Za-z][\\w-]*$/.test(el.id) && document.querySelectorAll('#' + el.id).length === 1) return '#' + el.id;
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
      const tag = node.localName;
      const same = node.parentElement ? [...node.parentElement.children].filter((c) => c.localName === tag) : [];
      parts.unshift(same.length > 1 ? tag + ':nth-of-type(' + (same.indexOf(node) + 1) + ')' : tag);
      if (tag === 'body') break;
    }
    return parts.join(' > ');
  };
  const contextOf = (el) => {
    const holder = el.closest('figure, p, li, td, dd, blockquote, section, article') || el.parentElement;
    const caption = el.closest('figure') ? el.closest('figure').querySelector('figcaption') : null;
    return clip((caption ? caption.textContent + ' ' : '') + (holder ? holder.textContent : ''), limits.contextChars);
  };
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const images = [...document.querySelectorAll('img[src]')].filter(visible).slice(0, limits.images).map((img) => ({
    src: img.currentSrc || img.src,
    alt: img.hasAttribute('alt') ? img.getAttribute('alt') : null,
    selector: selectorOf(img),
    html: clip(img.outerHTML, limits.htmlChars),
    context: contextOf(img),
  }));
  const nameOf = (a) => clip(a.getAttribute('aria-label') || a.innerText || a.textContent || [...a.querySelectorAll('img[alt]')].map((i) => i.alt).join(' ') || a.getAttribute('title') || '', 200);
  const links = [...document.querySelectorAll('a[href]')].filter(visible).slice(0, limits.links).map((a) => ({
    href: a.href,
    text: nameOf(a),
    selector: selectorOf(a),
    html: clip(a.outerHTML, limits.htmlChars),
    context: contextOf(a),
  }));
  const main = document.querySelector('main, [role=main]') || document.body;
  return {
    url: location.href,
    title: document.title,
    lang: document.documentElement.getAttribute('lang'),
    mainText: clip(main ? main.innerText : '', limits.mainTextChars),
    images,
    links,
  };
}`;

export async function collectLlmFacts(page: Page): Promise<LlmPageFacts> {
  return page.evaluate(`(${COLLECT})(${JSON.stringify(LLM_FACT_LIMITS)})`) as Promise<LlmPageFacts>;
}
