import { en, type Messages } from './en.ts';
import { fr } from './fr.ts';

export const LANGUAGES = { en, fr } as const;
export type Language = keyof typeof LANGUAGES;

/** A language kept in a stored row, as one the pages have: English when it is not (a row another version wrote). */
export function knownLanguage(value: string): Language {
  return Object.hasOwn(LANGUAGES, value) ? (value as Language) : 'en';
}

/**
 * The page language for an Accept-Language header (RFC 9110 section 12.5.4): the supported language with the highest
 * q-value, a range matching by its primary tag (`fr-CA` is French), `*` meaning English; q=0 refuses a language; equal
 * q-values keep the header's order. English when nothing supported is asked for, or the header is missing or malformed.
 */
export function pickLanguage(header: string | undefined): Language {
  if (!header) return 'en';
  let best: { lang: Language; q: number } | undefined;
  for (const part of header.slice(0, 1000).split(',')) {
    const [range = '', ...params] = part.trim().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0 || q > 1) continue;
    const primary = range.trim().toLowerCase().split('-')[0];
    const lang: Language | undefined =
      primary === '*' ? 'en' : primary === 'en' || primary === 'fr' ? primary : undefined;
    if (lang && (!best || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? 'en';
}

export interface Localized {
  lang: Language;
  t: Messages;
}

export function localized(header: string | undefined): Localized {
  const lang = pickLanguage(header);
  return { lang, t: LANGUAGES[lang] };
}
