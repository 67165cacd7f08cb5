import type { WcagLevel, WcagVersion } from '../result/types.ts';

const VERSION_PREFIXES: Record<WcagVersion, string[]> = {
  '2.0': ['wcag2'],
  '2.1': ['wcag2', 'wcag21'],
  '2.2': ['wcag2', 'wcag21', 'wcag22'],
};
const LEVEL_SUFFIXES: Record<WcagLevel, string[]> = { A: ['a'], AA: ['a', 'aa'], AAA: ['a', 'aa', 'aaa'] };

/**
 * axe's tags for a version and level. They are not cumulative: each names the criteria added by one
 * version at one level, so 2.2 AA is wcag2a, wcag2aa, wcag21a, wcag21aa, wcag22a, wcag22aa.
 */
export function axeTagsFor(version: WcagVersion, level: WcagLevel): string[] {
  const tags: string[] = [];
  for (const prefix of VERSION_PREFIXES[version])
    for (const suffix of LEVEL_SUFFIXES[level]) tags.push(prefix + suffix);
  return tags;
}

const LEVEL_TAG = /^wcag2\d?(a{1,3})$/;
const CRITERION_TAG = /^wcag(\d)(\d)(\d{1,2})$/;

/** `wcag1410` → `1.4.10`, in numeric order. */
export function criteriaOf(tags: readonly string[]): string[] {
  const found: string[] = [];
  for (const tag of tags) {
    const m = CRITERION_TAG.exec(tag);
    if (m) found.push(`${m[1]}.${m[2]}.${m[3]}`);
  }
  return [...new Set(found)].sort((a, b) => {
    const x = a.split('.').map(Number);
    const y = b.split('.').map(Number);
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  });
}

/** The lowest level among a rule's level tags (wcag2a < wcag2aa < wcag2aaa); AAA when it names none. */
export function levelOf(tags: readonly string[]): WcagLevel {
  let lowest: WcagLevel | null = null;
  const rank = { A: 0, AA: 1, AAA: 2 } as const;
  for (const tag of tags) {
    const m = LEVEL_TAG.exec(tag);
    if (!m) continue;
    const level = m[1]!.toUpperCase() as WcagLevel;
    if (lowest === null || rank[level] < rank[lowest]) lowest = level;
  }
  return lowest ?? 'AAA';
}
