import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * Markdown to safe HTML: marked renders, DOMPurify removes scripts, event handlers and javascript: links.
 * Style attributes go too, since the page's CSP would refuse them anyway. Loaded with the first text widget.
 */
// An image written without a text alternative (raw HTML <img>) is marked decorative rather than left unnamed;
// authors give one with ![text](url).
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'IMG' && !node.hasAttribute('alt')) node.setAttribute('alt', '');
});

export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false, gfm: true });
  return DOMPurify.sanitize(html, {
    FORBID_ATTR: ['style'],
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
  });
}
