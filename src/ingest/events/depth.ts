import { QUOTE, BACKSLASH, COMMA, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT } from './json-bytes.ts';

/** What makes a body too costly to parse, found from its text alone. */
export type Excess = 'too_deep' | 'too_many_values';

/**
 * Reads JSON text once, before JSON.parse builds anything, and says whether it nests objects and arrays more than
 * `maxDepth` levels deep or holds more than `maxValues` values. Parsing costs tens of bytes per value: 10 MB of `[`
 * or of `[],` would become millions of arrays (300 MB and more, times every such body parsed before the garbage is
 * collected). Values are counted as containers plus separators (an upper bound off by at most one per container);
 * brackets and commas inside strings do not count. The text need not be valid JSON: the parser judges that later.
 */
export function excessOf(text: string, maxDepth: number, maxValues: number): Excess | undefined {
  let depth = 0;
  let values = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote: strings are most of a real body and hold no structure.
      for (i++; i < length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'too_deep';
      if (++values > maxValues) return 'too_many_values';
    } else if (c === COMMA) {
      if (++values > maxValues) return 'too_many_values';
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}
