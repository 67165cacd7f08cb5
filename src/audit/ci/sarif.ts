import { sha256Hex } from '../../kit/crypto.ts';
import pkg from '../../../package.json' with { type: 'json' };
import type { AuditResult, Finding, Impact } from '../result/types.ts';
import { failureKey } from '../compare/failure-key.ts';

/** axe's impacts as SARIF levels: what must be fixed is an error, the rest warnings and notes. */
const LEVEL: Record<Impact, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  serious: 'error',
  moderate: 'warning',
  minor: 'note',
};

/** GitHub code scanning's 0–10 severity, read from a rule's `security-severity`-like property for sorting. */
const SEVERITY: Record<Impact, string> = { critical: '9.0', serious: '7.0', moderate: '4.0', minor: '1.0' };

interface SarifRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  helpUri: string;
  help: { text: string };
  defaultConfiguration: { level: 'error' | 'warning' | 'note' };
  properties: { tags: string[]; precision: 'very-high'; 'problem.severity': string; impact: Impact };
}

/**
 * The run as a SARIF 2.1.0 log, for code-scanning views and SARIF viewers: one result per failing element, its
 * location the page (an artifact by URL, the element's markup as the snippet) and the element (a logical location,
 * its selector); failures an ignore rule in force matches carry an accepted external suppression with the rule's
 * reason, as SARIF says a suppression kept outside the code is written; pages that could not be audited are the
 * invocation's error notifications. `partialFingerprints` hold the failure's rule, selector and page path, so a
 * viewer tracks one failure across runs as the gate's new-failure check does. Valid against the published schema.
 */
export function toSarif(result: AuditResult): string {
  const rules = new Map<string, SarifRule>();
  const ruleIndex = (
    f: Pick<Finding, 'ruleId' | 'impact' | 'summary' | 'description' | 'help' | 'successCriteria'>,
  ) => {
    let rule = rules.get(f.ruleId);
    if (!rule) {
      rule = {
        id: f.ruleId,
        name: f.ruleId.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()),
        shortDescription: { text: f.summary },
        fullDescription: { text: f.description },
        helpUri: f.help,
        help: { text: `${f.description} ${f.help}` },
        defaultConfiguration: { level: LEVEL[f.impact] },
        properties: {
          tags: ['accessibility', ...f.successCriteria.map((c) => `WCAG ${c}`)],
          precision: 'very-high',
          'problem.severity': LEVEL[f.impact] === 'note' ? 'recommendation' : LEVEL[f.impact],
          impact: f.impact,
        },
      };
      rules.set(f.ruleId, rule);
    }
    return [...rules.keys()].indexOf(f.ruleId);
  };
  const artifacts = result.pages.map((p) => ({ location: { uri: uriOf(p.url) }, sourceLanguage: 'html' }));
  const artifactIndex = (url: string) => result.pages.findIndex((p) => p.url === url);
  const results: unknown[] = result.findings.map((f) => ({
    ruleId: f.ruleId,
    ruleIndex: ruleIndex(f),
    level: LEVEL[f.impact],
    message: { text: `${f.summary}. ${f.fix}`.trim() },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: uriOf(f.pageUrl), index: artifactIndex(f.pageUrl) },
          region: { snippet: { text: f.html } },
        },
        logicalLocations: [{ fullyQualifiedName: f.selector, kind: 'element' }],
      },
    ],
    partialFingerprints: { 'accessibilityFailure/v1': sha256Hex(failureKey(f)) },
    ...(f.ignored
      ? {
          suppressions: [
            {
              kind: 'external',
              status: 'accepted',
              justification: `${f.ignored.reason} (ignored until ${f.ignored.expires})`,
            },
          ],
        }
      : {}),
    properties: {
      impact: f.impact,
      successCriteria: f.successCriteria,
      wcagLevel: f.level,
      'security-severity': SEVERITY[f.impact],
    },
  }));
  for (const o of result.omitted ?? []) {
    if (o.findings === 0) continue;
    const listed = result.findings.find((f) => f.ruleId === o.ruleId);
    if (!listed) continue;
    results.push({
      ruleId: o.ruleId,
      ruleIndex: ruleIndex(listed),
      level: LEVEL[listed.impact],
      message: {
        text: `${o.findings} more elements fail ${o.ruleId} on this page; not listed (at most ${result.engine.maxElementsPerRule ?? 'a fixed number of'} per rule and page).`,
      },
      locations: [
        { physicalLocation: { artifactLocation: { uri: uriOf(o.pageUrl), index: artifactIndex(o.pageUrl) } } },
      ],
    });
  }
  const failedPages = result.pages.filter((p) => p.status === 'failed');
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'platform audit',
            version: pkg.version,
            rules: [...rules.values()],
          },
          extensions: [
            {
              name: 'axe-core',
              version: result.engine.axeVersion,
              informationUri: 'https://github.com/dequelabs/axe-core',
            },
          ],
        },
        invocations: [
          {
            executionSuccessful: true,
            startTimeUtc: result.startedAt,
            endTimeUtc: result.finishedAt,
            toolExecutionNotifications: failedPages.map((p) => ({
              level: 'error',
              message: { text: `${p.url} could not be audited: ${p.error ?? 'unknown error'}` },
              locations: [
                { physicalLocation: { artifactLocation: { uri: uriOf(p.url), index: artifactIndex(p.url) } } },
              ],
            })),
          },
        ],
        artifacts,
        results,
        properties: {
          url: result.url,
          wcagVersion: result.wcagVersion,
          wcagLevel: result.wcagLevel,
          score: result.score,
          browser: result.engine.browser,
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** A page's address as a URI (SARIF's `uri` is a URI reference): what a page's query may carry raw, percent-encoded. */
function uriOf(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return encodeURI(url);
  }
}
