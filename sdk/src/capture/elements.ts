import { cut } from './cut.ts';

/** Elements a person means to click; a click inside one is reported as a click on it. */
const INTERACTIVE =
  'a,button,input,select,textarea,label,summary,[role=button],[role=link],[role=tab],[role=menuitem],[role=checkbox],[role=switch],[data-component]';
const MAX_TEXT = 255;
const MAX_DEPTH = 8;

export function interactiveTarget(target: EventTarget | null): Element | undefined {
  return target instanceof Element ? (target.closest(INTERACTIVE) ?? target) : undefined;
}

/** `button#pay.primary`: the tag, id and first two classes. */
export function describe(el: Element): string {
  let s = el.tagName.toLowerCase();
  if (el.id) s += `#${el.id}`;
  const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
  for (const c of classes) s += `.${c}`;
  return s;
}

/** The element's ancestry, outermost first, stopping at `body` or after eight levels. */
export function componentPath(el: Element): string {
  const parts: string[] = [];
  for (
    let e: Element | null = el;
    e && e.tagName !== 'BODY' && e.tagName !== 'HTML' && parts.length < MAX_DEPTH;
    e = e.parentElement
  ) {
    const name = e.getAttribute('data-component');
    parts.unshift(name ?? describe(e));
  }
  return parts.join(' > ');
}

/**
 * The visible label of an element: never a form field's value, and nothing at all inside an element that
 * carries the mask attribute.
 */
export function visibleText(el: Element, maskAttribute: string): string {
  if (el.closest(`[${maskAttribute}]`)) return '';
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) {
    const button = el instanceof HTMLInputElement && ['submit', 'button', 'reset'].includes(el.type);
    return cut(el.getAttribute('aria-label') ?? (button ? el.value : ''), MAX_TEXT);
  }
  const label = el.getAttribute('aria-label');
  const text =
    label ??
    (el.querySelector(`[${maskAttribute}]`)
      ? unmaskedText(el, maskAttribute)
      : ((el as HTMLElement).innerText ?? el.textContent ?? ''));
  return cut(text.replace(/\s+/g, ' ').trim(), MAX_TEXT);
}

/** The text of an element holding masked parts (a `[data-component]` container, a link around them), without them. */
function unmaskedText(el: Element, maskAttribute: string): string {
  let text = '';
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (n) =>
      n.nodeType !== Node.ELEMENT_NODE
        ? NodeFilter.FILTER_ACCEPT
        : (n as Element).hasAttribute(maskAttribute) || n.nodeName === 'SCRIPT' || n.nodeName === 'STYLE'
          ? NodeFilter.FILTER_REJECT
          : NodeFilter.FILTER_SKIP,
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) text += ` ${n.nodeValue}`;
  return text;
}

export function componentName(el: Element): string | undefined {
  return el.closest('[data-component]')?.getAttribute('data-component') ?? undefined;
}
