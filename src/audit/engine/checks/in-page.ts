/// <reference lib="dom" />
import type { Frame } from 'playwright-core';

/**
 * Helpers the checks use inside the audited page, installed once per frame as `globalThis.__a11yChecks`: an
 * element's selector (axe's target shape within one frame: an array when it crosses open shadow roots) and its
 * markup, shortened as axe shortens it. Runs in the page; self-contained.
 */
function installHelpers(): void {
  const g = globalThis as unknown as Record<string, unknown>;
  if (g.__a11yChecks) return;
  type El = Element;
  const cssEscape = (s: string) => (globalThis as unknown as { CSS: { escape(v: string): string } }).CSS.escape(s);
  function within(el: El, root: Document | ShadowRoot): string {
    const parts: string[] = [];
    let node: El | null = el;
    while (node?.parentNode) {
      const id = node.getAttribute('id');
      if (id && root.querySelectorAll(`#${cssEscape(id)}`).length === 1) {
        parts.unshift(`#${cssEscape(id)}`);
        break;
      }
      const tag = node.localName;
      const parent: Node = node.parentNode;
      const same = Array.from((parent as ParentNode).children ?? []).filter((c) => c.localName === tag);
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(node) + 1})` : tag);
      if (parent === root || !(parent instanceof Element)) break;
      node = parent;
    }
    return parts.join(' > ');
  }
  function selector(el: El): string[] {
    const root = el.getRootNode();
    if (root instanceof ShadowRoot) return [...selector(root.host), within(el, root)];
    return [within(el, document)];
  }
  function html(el: El): string {
    const outer = el.outerHTML;
    if (outer.length <= 300) return outer;
    const open = /^<[^>]*>/.exec(outer)?.[0] ?? outer.slice(0, 300);
    return open.length > 300 ? `${open.slice(0, 297)}...>` : `${open}...`;
  }
  function deepActive(): El | null {
    let el: El | null = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el;
  }
  function visible(el: El): boolean {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  g.__a11yChecks = { selector, html, deepActive, visible };
}

export const HELPERS_SOURCE = `(${installHelpers.toString()})()`;

/** What the helpers give page functions, for their own typing. */
export interface Helpers {
  selector(el: Element): string[];
  html(el: Element): string;
  deepActive(): Element | null;
  visible(el: Element): boolean;
}

export async function installInto(frame: Frame): Promise<void> {
  await frame.evaluate(HELPERS_SOURCE);
}
