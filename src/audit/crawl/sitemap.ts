import type { XMLParser } from 'fast-xml-parser';
import { lazyPackage } from '../../kit/lazy-package.ts';

const fastXmlParser = lazyPackage<typeof import('fast-xml-parser')>('fast-xml-parser');

let parser: XMLParser | undefined;

function sitemapParser(): XMLParser {
  parser ??= new (fastXmlParser().XMLParser)({
    ignoreAttributes: true,
    removeNSPrefix: true,
    processEntities: true,
    htmlEntities: false,
  });
  return parser;
}

export interface ParsedSitemap {
  /** Page URLs of a `<urlset>`. */
  pages: string[];
  /** Child sitemaps of a `<sitemapindex>`. */
  sitemaps: string[];
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Reads a sitemap or sitemap index (sitemaps.org 0.9); anything unreadable is an empty sitemap. */
export function parseSitemap(xml: string): ParsedSitemap {
  let doc: Record<string, unknown>;
  try {
    doc = sitemapParser().parse(xml) as Record<string, unknown>;
  } catch {
    return { pages: [], sitemaps: [] };
  }
  const locs = (entries: unknown): string[] =>
    asArray(entries as Array<{ loc?: unknown }> | { loc?: unknown } | undefined)
      .map((e) => (e && typeof e === 'object' && typeof e.loc === 'string' ? e.loc.trim() : ''))
      .filter(Boolean);
  const urlset = doc.urlset as { url?: unknown } | undefined;
  const index = doc.sitemapindex as { sitemap?: unknown } | undefined;
  return {
    pages: urlset && typeof urlset === 'object' ? locs(urlset.url) : [],
    sitemaps: index && typeof index === 'object' ? locs(index.sitemap) : [],
  };
}
