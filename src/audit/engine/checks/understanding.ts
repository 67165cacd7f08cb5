/** The W3C's Understanding page of a criterion: where a deep-audit rule's `help` link points. */
export function understanding(slug: string): string {
  return `https://www.w3.org/WAI/WCAG22/Understanding/${slug}.html`;
}
