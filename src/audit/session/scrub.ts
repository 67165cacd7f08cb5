import { escapeHtml } from '../report/escape.ts';

/**
 * Every form in which a secret could come back from a page or the browser — as typed, URL-encoded (a form sent by
 * GET), form-encoded, HTML-escaped (an attribute in axe's markup) — replaced by `[secret]`. Applied to results and
 * error messages before they are stored, answered or logged: a page may echo what the sign-in filled in, and
 * Playwright's call log names the value `fill` typed.
 */
export function secretScrubber(values: Iterable<string>): (text: string) => string {
  const forms = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    forms.add(value);
    forms.add(encodeURIComponent(value));
    forms.add(encodeURIComponent(value).replaceAll('%20', '+'));
    forms.add(escapeHtml(value));
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  // Longest first, so a form that contains another is replaced whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const form of ordered) if (out.includes(form)) out = out.replaceAll(form, '[secret]');
    return out;
  };
}

/** A JSON value with every string in it scrubbed. */
export function scrubDeep<T>(value: T, scrub: (text: string) => string): T {
  return JSON.parse(JSON.stringify(value), (_key, v: unknown) => (typeof v === 'string' ? scrub(v) : v)) as T;
}
