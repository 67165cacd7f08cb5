import type { AuditResult } from '../result/types.ts';
import type { AdherenceLevel } from './catalog.ts';
import { anyRulesCovering, deepRulesCovering } from './coverage.ts';

export interface Adherence {
  level: AdherenceLevel;
  notes: string;
}

const MAX_URLS_IN_NOTE = 5;

/**
 * AAA criteria that are stricter forms of A/AA ones: what fails the weaker one fails these too. axe does not say
 * so itself — its color-contrast-enhanced passes text below 4.5:1 (3:1 large), leaving it to color-contrast
 * (1.4.3) by its `minThreshold`, and link-name (a link without a name) is tagged 2.4.4 only — so without this a
 * page with 2:1 text would *support* 1.4.6 Contrast (Enhanced). Used only where the stricter criterion's own
 * rules ran (an AAA audit).
 */
const ALSO_FAILED_BY: Record<string, string[]> = {
  '1.4.6': ['1.4.3'], // Contrast (Enhanced) ⊃ Contrast (Minimum)
  '2.4.9': ['2.4.4'], // Link Purpose (Link Only) ⊃ Link Purpose (In Context)
  '2.1.3': ['2.1.1'], // Keyboard (No Exception) ⊃ Keyboard
};

/**
 * Rules tagged with another criterion whose failures still keep this one from being *supports*. axe's `label`
 * and `select-name` find form fields with no accessible name and are tagged 4.1.2 only (axe-core moved them off
 * 3.3.2 in 4.0 and off 1.3.1 in 4.5: they test names, not visible labels or their association). Such a field
 * fails 1.3.1 when a visible label is there but not associated, or 3.3.2 when there is none — which of the two
 * takes a person's look, so neither may be reported as supported by checks that passed (3.3.2's own rule,
 * form-field-multiple-labels, passes on every field without a label).
 */
const UNDECIDED_BY: Record<string, string[]> = {
  '1.3.1': ['label', 'select-name'],
  '3.3.2': ['label', 'select-name'],
};

function listUrls(urls: string[]): string {
  const shown = urls.slice(0, MAX_URLS_IN_NOTE).join(', ');
  return urls.length > MAX_URLS_IN_NOTE ? `${shown} and ${urls.length - MAX_URLS_IN_NOTE} more` : shown;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The adherence of the audited site to one criterion, from the audit's evidence alone. `supports` needs rules
 * for the criterion to have run and found elements to check and nothing failing or left for review; a criterion
 * no rule of this audit checks is `not-evaluated`, never `supports` by silence. Failing on more than half of
 * the audited pages is `does-not-support` (the catalog's "majority of product functionality"), on fewer
 * `partially-supports`.
 */
export function adherenceOf(result: AuditResult, criterion: string): Adherence {
  if (criterion === '4.1.1') {
    return {
      level: 'supports',
      notes:
        'WCAG 2.2 made 4.1.1 Parsing obsolete and the W3C errata to WCAG 2.0 and 2.1 state that it is always satisfied for content in HTML or XML; not tested.',
    };
  }
  const audited = result.pages.filter((p) => p.status === 'audited');
  if (audited.length === 0) return { level: 'not-evaluated', notes: 'No page could be audited.' };

  const outcomes = result.rules.filter((r) => r.successCriteria.includes(criterion));
  if (outcomes.length === 0) {
    const existing = anyRulesCovering(criterion);
    const deep = deepRulesCovering(criterion);
    const by = [
      ...(existing.length > 0 ? [`axe-core checks it with ${existing.join(', ')}`] : []),
      ...(deep.length > 0 ? [`a deep audit (deep: true) with ${deep.join(', ')}`] : []),
    ];
    return {
      level: 'not-evaluated',
      notes:
        by.length > 0
          ? `Not part of this audit's automated checks at WCAG ${result.wcagVersion} level ${result.wcagLevel} (${by.join('; ')}); needs manual evaluation.`
          : 'No automated check covers this criterion; needs manual evaluation.',
    };
  }
  const counted = [criterion, ...(ALSO_FAILED_BY[criterion] ?? [])];
  const covers = (successCriteria: string[]) => successCriteria.some((c) => counted.includes(c));
  const rules = [...new Set(result.rules.filter((r) => covers(r.successCriteria)).map((o) => o.ruleId))].join(', ');
  const findings = result.findings.filter((f) => covers(f.successCriteria));
  const failingPages = [...new Set(findings.map((f) => f.pageUrl))];
  // Failing elements past the per-rule cap are counted, not listed: the note says how many fail, not how many are shown.
  const failing =
    findings.length +
    (result.omitted ?? []).filter((o) => covers(o.successCriteria)).reduce((n, o) => n + o.findings, 0);
  const llm = (result.llm?.findings ?? []).filter((f) => f.successCriteria.includes(criterion)).length;
  const llmNote = llm > 0 ? ` LLM review flagged ${plural(llm, 'more item')} for a person to check (not counted).` : '';

  if (failingPages.length > 0) {
    return {
      level: failingPages.length * 2 > audited.length ? 'does-not-support' : 'partially-supports',
      notes: `Automated checks (${rules}) found ${plural(failing, 'failing element')} on ${failingPages.length} of ${plural(audited.length, 'audited page')}: ${listUrls(failingPages)}.${llmNote}`,
    };
  }
  const unnamed = result.findings.filter((f) => UNDECIDED_BY[criterion]?.includes(f.ruleId));
  if (unnamed.length > 0) {
    const unnamedRules = [...new Set(unnamed.map((f) => f.ruleId))].join(', ');
    const unnamedPages = [...new Set(unnamed.map((f) => f.pageUrl))];
    return {
      level: 'not-evaluated',
      notes: `Automated checks (${rules}) found no failure, but ${unnamedRules} found ${plural(unnamed.length, 'form field')} without an accessible name on ${plural(unnamedPages.length, 'page')} (${listUrls(unnamedPages)}), reported under 4.1.2; each also fails 1.3.1 (a visible label not associated) or 3.3.2 (no label at all), which needs a person to decide.${llmNote}`,
    };
  }
  const review = result.needsReview.filter((n) => covers(n.successCriteria));
  if (review.length > 0) {
    const reviewPages = new Set(review.map((n) => n.pageUrl)).size;
    return {
      level: 'not-evaluated',
      notes: `Automated checks (${rules}) found no failure but left ${plural(review.length, 'element')} on ${plural(reviewPages, 'page')} for manual review.${llmNote}`,
    };
  }
  const passedPages = Math.max(...outcomes.map((o) => o.passedPages));
  if (passedPages === 0) {
    return {
      level: 'not-applicable',
      notes: `Automated checks (${rules}) found no content this criterion applies to on ${plural(audited.length, 'audited page')}.${llmNote}`,
    };
  }
  return {
    level: 'supports',
    notes: `Automated checks (${rules}) found no failure on ${plural(audited.length, 'audited page')}; automated checks cover only part of this criterion.${llmNote}`,
  };
}
