import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { axeTagsFor } from '../engine/axe-tags.ts';
import type { AuditConfig, WcagLevel, WcagVersion } from '../result/types.ts';
import { resolveIgnoreRules } from '../ignore/rules.ts';
import { resolveSession } from '../session/resolve.ts';
import type { RequestedConfig } from './schema.ts';

export const DEFAULT_CRAWL_DEPTH = 2;
export const DEFAULT_CRAWL_PAGES = 25;

export interface ConfigLimits {
  defaultVersion: WcagVersion;
  defaultLevel: WcagLevel;
  /** Whether an audit runs the deep checks when the request does not say (AUDIT_DEEP_DEFAULT). */
  defaultDeep?: boolean;
  maxDepth: number;
  maxPages: number;
}

export function badRequest(message: string): HttpError {
  return new HttpError(400, codeForStatus(400), message);
}

/** Fills every default and holds crawl options to the operator's ceilings (400 beyond them, naming the ceiling). */
export function resolveConfig(requested: RequestedConfig, limits: ConfigLimits): AuditConfig {
  const version = typeof requested.version === 'number' ? requested.version.toFixed(1) : requested.version;
  const wcagVersion = (version ?? limits.defaultVersion) as WcagVersion;
  const wcagLevel = (requested.level?.toUpperCase() ?? limits.defaultLevel) as WcagLevel;
  const crawl = requested.crawl ?? {};
  const depth = crawl.depth ?? Math.min(DEFAULT_CRAWL_DEPTH, limits.maxDepth);
  const maxPages = crawl.maxPages ?? Math.min(DEFAULT_CRAWL_PAGES, limits.maxPages);
  if (depth > limits.maxDepth)
    throw badRequest(`crawl.depth must be at most ${limits.maxDepth} (this service's AUDIT_MAX_DEPTH); got ${depth}`);
  if (maxPages > limits.maxPages)
    throw badRequest(
      `crawl.maxPages must be at most ${limits.maxPages} (this service's AUDIT_MAX_PAGES); got ${maxPages}`,
    );
  const llm = requested.llm ?? {};
  // Page content leaves for a third party only when the caller says so in as many words: an llm object without
  // `enabled` is neither taken as yes nor silently ignored.
  if (requested.llm !== undefined && llm.enabled === undefined) {
    throw badRequest(
      "llm.enabled is required with an llm object: true sends the pages' content to the language model provider, false does not",
    );
  }
  return {
    wcagVersion,
    wcagLevel,
    // A caller who sends crawl limits (`crawl: {depth: 2, maxPages: 5}`) means to crawl; only an explicit
    // `enabled: false` turns it off, so a template can switch crawling with one flag and keep its limits.
    crawl: { enabled: crawl.enabled ?? requested.crawl !== undefined, depth, maxPages },
    llm: { enabled: llm.enabled ?? false, provider: llm.provider ?? null, model: llm.model ?? null },
    axeTags: axeTagsFor(wcagVersion, wcagLevel),
    deep: requested.deep ?? limits.defaultDeep ?? false,
    bestPractices: requested.bestPractices ?? false,
    session: resolveSession(requested.session),
    ignore: resolveIgnoreRules(requested.ignore),
  };
}

/** The URL as stored and audited: absolute http(s), at most 2048 characters, fragment kept as given. */
export function parseAuditUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    // The URL parser only says "Invalid URL"; a port past 65535 is a common slip worth naming.
    const port = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:]*):(\d+)(?:[/?#]|$)/i.exec(raw.trim())?.[1];
    if (port !== undefined && Number(port) > 65535)
      throw badRequest(
        `url has the port ${port.length > 12 ? port.slice(0, 12) + '…' : port}, out of range: a port is at most 65535`,
      );
    throw badRequest(
      `url must be an absolute http or https URL; got ${JSON.stringify(raw.length > 100 ? raw.slice(0, 100) + '…' : raw)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest(`url must use http or https; got ${url.protocol.replace(':', '')}`);
  if (url.username || url.password) throw badRequest('url must not carry a user name or password');
  return url;
}
