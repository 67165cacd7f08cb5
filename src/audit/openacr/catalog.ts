import type { WcagLevel, WcagVersion } from '../result/types.ts';
import wcag20 from './data/2.5-edition-wcag-2.0-508-en.json' with { type: 'json' };
import wcag21 from './data/2.5-edition-wcag-2.1-508-en.json' with { type: 'json' };
import wcag22 from './data/2.5-edition-wcag-2.2-508-en.json' with { type: 'json' };
import termsData from './data/terms.json' with { type: 'json' };

/**
 * The OpenACR catalogs this service writes reports against, vendored from GSA/openacr (see each data file's
 * `source`): the WCAG chapters of the VPAT® 2.5 editions, their criteria in catalog order, and the terms.
 */
export type ChapterId = 'success_criteria_level_a' | 'success_criteria_level_aa' | 'success_criteria_level_aaa';
export type AdherenceLevel =
  | 'supports'
  | 'partially-supports'
  | 'does-not-support'
  | 'not-applicable'
  | 'not-evaluated';

export interface CatalogCriterion {
  num: string;
  handle: string;
}

export interface Catalog {
  id: string;
  title: string;
  wcagVersion: WcagVersion;
  chapters: Record<ChapterId, { level: WcagLevel; criteria: CatalogCriterion[] }>;
}

export const CHAPTER_FOR_LEVEL: Record<WcagLevel, ChapterId> = {
  A: 'success_criteria_level_a',
  AA: 'success_criteria_level_aa',
  AAA: 'success_criteria_level_aaa',
};

/** The component every criterion of a web audit is reported under (the catalogs' component id for web content). */
export const WEB_COMPONENT = 'web';

export const CATALOGS: readonly Catalog[] = [wcag20, wcag21, wcag22] as Catalog[];

export const ADHERENCE_TERMS: readonly { id: AdherenceLevel; label: string; description: string }[] =
  termsData.terms as { id: AdherenceLevel; label: string; description: string }[];

export function findCatalog(id: string): Catalog | undefined {
  return CATALOGS.find((c) => c.id === id);
}

/** The catalog of the audit's WCAG version when the caller names none. */
export function defaultCatalog(version: WcagVersion): Catalog {
  return CATALOGS.find((c) => c.wcagVersion === version)!;
}

/** The chapters a report at `level` lists: A and AA always (a level A audit shows AA as not evaluated), AAA only for AAA audits. */
export function chaptersFor(level: WcagLevel): ChapterId[] {
  return level === 'AAA'
    ? ['success_criteria_level_a', 'success_criteria_level_aa', 'success_criteria_level_aaa']
    : ['success_criteria_level_a', 'success_criteria_level_aa'];
}
