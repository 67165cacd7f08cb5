import type { WcagLevel } from '../result/types.ts';
import { CATALOGS } from '../openacr/catalog.ts';

/** WCAG success criteria by number, with their names and levels (from the WCAG 2.2 catalog, which holds every 2.x criterion). */
const NAMES = new Map<string, { handle: string; level: WcagLevel }>();
for (const chapter of Object.values(CATALOGS[CATALOGS.length - 1]!.chapters)) {
  for (const c of chapter.criteria) NAMES.set(c.num, { handle: c.handle, level: chapter.level });
}

export function criterionName(num: string): string | undefined {
  return NAMES.get(num)?.handle;
}

/** Numeric order of criterion numbers: 1.4.3 before 1.4.10. */
export function compareCriteria(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A short anchor id for a criterion section (`sc-1-4-3`). */
export function criterionAnchor(prefix: string, num: string): string {
  return `${prefix}-${num.replace(/\./g, '-')}`;
}
