import type { AuditResult } from '../result/types.ts';
import { adherenceOf } from './adherence.ts';
import {
  CATALOGS,
  chaptersFor,
  defaultCatalog,
  findCatalog,
  WEB_COMPONENT,
  type AdherenceLevel,
  type Catalog,
  type ChapterId,
} from './catalog.ts';

/** What the caller of `GET /api/v1/audits/{id}/openacr` may set (Document 3's query parameters, without `format`). */
export interface OpenAcrOptions {
  catalog?: string | undefined;
  productName?: string | undefined;
  productVersion?: string | undefined;
  authorName?: string | undefined;
  authorEmail?: string | undefined;
  vendorName?: string | undefined;
  vendorEmail?: string | undefined;
}

/** The operator's defaults for the author (configuration). */
export interface OpenAcrDefaults {
  authorName: string;
  authorEmail: string | undefined;
}

interface Contact {
  name?: string;
  company_name?: string;
  email: string;
}

export interface OpenAcrCriterion {
  num: string;
  components: { name: string; adherence: { level: AdherenceLevel; notes: string } }[];
}

export interface OpenAcrChapter {
  notes: string;
  criteria: OpenAcrCriterion[];
}

/** An OpenACR report (GSA's schema openacr-0.1.0), the fields this service fills in, in the order GSA's examples use. */
export interface OpenAcr {
  title: string;
  product: { name: string; version?: string };
  author: Contact;
  vendor?: Contact;
  report_date: string;
  notes: string;
  evaluation_methods_used: string;
  catalog: string;
  chapters: Partial<Record<ChapterId, OpenAcrChapter>>;
}

export class UnknownCatalogError extends Error {
  constructor(id: string, known: readonly string[]) {
    super(
      `catalog "${id}" is not one this service knows: use one of ${known.join(', ')} (or leave it out to use the audit's WCAG version)`,
    );
    this.name = 'UnknownCatalogError';
  }
}

export function resolveCatalog(id: string | undefined, result: AuditResult): Catalog {
  if (id === undefined) return defaultCatalog(result.wcagVersion);
  const catalog = findCatalog(id);
  if (!catalog)
    throw new UnknownCatalogError(
      id,
      CATALOGS.map((c) => c.id),
    );
  return catalog;
}

function chapter(result: AuditResult, catalog: Catalog, id: ChapterId): OpenAcrChapter {
  const audited = result.pages.filter((p) => p.status === 'audited').length;
  const criteria = catalog.chapters[id].criteria.map((c) => {
    const adherence = adherenceOf(result, c.num);
    return { num: c.num, components: [{ name: WEB_COMPONENT, adherence }] };
  });
  const count = (level: AdherenceLevel) => criteria.filter((c) => c.components[0]!.adherence.level === level).length;
  const evaluated = criteria.length - count('not-evaluated');
  const level = catalog.chapters[id].level;
  const notes = [
    `Level ${level} criteria of WCAG ${catalog.wcagVersion}, from an automated audit of ${audited} ${audited === 1 ? 'page' : 'pages'} at WCAG ${result.wcagVersion} level ${result.wcagLevel}.`,
    `${evaluated} of ${criteria.length} criteria have an automated result (supports ${count('supports')}, partially supports ${count('partially-supports')}, does not support ${count('does-not-support')}, not applicable ${count('not-applicable')});`,
    `${count('not-evaluated')} are not evaluated: no automated check covers them or items need review, so a person must evaluate them.`,
  ].join(' ');
  return { notes, criteria };
}

function date(iso: string): string {
  return iso.slice(0, 10);
}

/** Builds the OpenACR report of a completed audit. Throws UnknownCatalogError for a catalog it does not know. */
export function buildOpenAcr(result: AuditResult, options: OpenAcrOptions, defaults: OpenAcrDefaults): OpenAcr {
  const catalog = resolveCatalog(options.catalog, result);
  const productName = options.productName ?? result.url;
  const vendor: Contact | undefined =
    options.vendorName !== undefined || options.vendorEmail !== undefined
      ? {
          ...(options.vendorName !== undefined ? { company_name: options.vendorName } : {}),
          email: options.vendorEmail ?? '',
        }
      : undefined;
  const audited = result.pages.filter((p) => p.status === 'audited');
  const failed = result.pages.filter((p) => p.status === 'failed');
  const pages =
    audited.length <= 20
      ? audited.map((p) => p.url).join(', ')
      : `${audited
          .slice(0, 20)
          .map((p) => p.url)
          .join(', ')} and ${audited.length - 20} more`;
  const llm = result.llm;
  const notes = [
    `Automated accessibility audit of ${result.url}: ${audited.length} ${audited.length === 1 ? 'page' : 'pages'} audited (${pages})${failed.length > 0 ? `, ${failed.length} could not be audited` : ''}.`,
    `Score ${result.score}/100; ${result.stats.totalFindings} failing elements (critical ${result.stats.critical}, serious ${result.stats.serious}, moderate ${result.stats.moderate}, minor ${result.stats.minor}); ${result.stats.needsReview} elements need manual review.`,
    llm
      ? `LLM assistance (${llm.provider} ${llm.model}) ${llm.status === 'completed' ? `flagged ${llm.findings.length} items for review` : `was ${llm.status}${llm.error ? `: ${llm.error}` : ''}`}; LLM judgements never change an adherence level.`
      : '',
    result.stats.ignored
      ? `${result.stats.ignored} of the failing elements match the team's ignore rules (known failures, each with a reason and an expiry date); they count here like any other failure.`
      : '',
    catalog.wcagVersion !== result.wcagVersion
      ? `The catalog is for WCAG ${catalog.wcagVersion} but the audit checked WCAG ${result.wcagVersion}; criteria outside the audit are not evaluated.`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
  const evaluation = [
    `Automated testing with axe-core ${result.engine.axeVersion} in ${result.engine.browser}, rules tagged ${result.config.axeTags.join(', ')}, between ${result.startedAt} and ${result.finishedAt}.`,
    'Supports means that the automated checks for the criterion ran on content they apply to and found no failure; automated checks cover only part of WCAG, so criteria without them, and elements the checks could not decide, are marked not evaluated and need a manual review.',
  ].join(' ');
  const report: OpenAcr = {
    title: `${options.vendorName ?? productName} Accessibility Conformance Report`,
    product: {
      name: productName,
      ...(options.productVersion !== undefined ? { version: options.productVersion } : {}),
    },
    author: {
      name: options.authorName ?? defaults.authorName,
      email: options.authorEmail ?? defaults.authorEmail ?? '',
    },
    ...(vendor ? { vendor } : {}),
    report_date: date(result.finishedAt),
    notes,
    evaluation_methods_used: evaluation,
    catalog: catalog.id,
    chapters: {},
  };
  for (const id of chaptersFor(result.wcagLevel)) report.chapters[id] = chapter(result, catalog, id);
  return report;
}
