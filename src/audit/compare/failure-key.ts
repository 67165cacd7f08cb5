import type { Finding } from '../result/types.ts';

/**
 * What makes a failure the same one in two runs: its rule, its element's selector and its page's path and query.
 * The host is left out, so a run against a pull request's preview compares with one against staging.
 */
export function failureKey(finding: Pick<Finding, 'ruleId' | 'selector' | 'pageUrl'>): string {
  return `${finding.ruleId}\u0000${pagePath(finding.pageUrl)}\u0000${finding.selector}`;
}

/** A page's path and query, or the URL itself when it cannot be parsed. */
export function pagePath(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}
