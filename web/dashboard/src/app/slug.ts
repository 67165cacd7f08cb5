/**
 * Lower-case letters, digits and single hyphens from any text: accents are dropped with their marks ("Régions" is
 * "regions", not "re-gions"), everything else becomes a hyphen; `fallback` when nothing is left.
 */
export const slugify = (text: string, fallback: string, max = 100): string =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '') || fallback;
