import type {
  AuditResult,
  Finding,
  IgnoreRuleOutcome,
  Impact,
  LlmFinding,
  LlmOutcome,
  NeedsReviewItem,
  MergeReason,
  PageResult,
} from '../result/types.ts';
import { criterionAnchor, criterionName } from './criteria.ts';
import { escapeHtml as e, link } from './escape.ts';
import { groupByCriterion, type CriterionGroup } from './group.ts';
import { rulePriorities } from './priorities.ts';
import { REPORT_CSS } from './styles.ts';

/**
 * The HTML report (`format=html`): one self-contained page — inline styles, no scripts, no outside assets —
 * that a person reads instead of the JSON. Every value from the audited pages is escaped, and a
 * Content-Security-Policy meta tag refuses scripts and outside loads should anything slip through.
 */

const IMPACT_LABEL: Record<Impact, string> = {
  critical: 'Critical',
  serious: 'Serious',
  moderate: 'Moderate',
  minor: 'Minor',
};
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function criterionHeading(criterion: string | null, level: string | undefined): string {
  if (criterion === null) return 'Not mapped to a success criterion';
  const name = criterionName(criterion);
  return `${e(criterion)}${name ? ` ${e(name)}` : ''}${level ? ` (level ${e(level)})` : ''}`;
}

function snippet(html: string): string {
  return `<pre><code>${e(html)}</code></pre>`;
}

/** Only our own engine's JPEG data URIs become an image; the report's CSP allows `data:` images and nothing else. */
const SHOT = /^data:image\/jpeg;base64,[A-Za-z0-9+/]+={0,2}$/;

function screenshot(f: Finding): string {
  if (!f.screenshot || !SHOT.test(f.screenshot)) return '';
  return `<dt>Screenshot</dt><dd><img class="shot" src="${f.screenshot}" alt="The element on the page, outlined in red"></dd>\n`;
}

function findingItem(f: Finding): string {
  return `<li class="${f.impact}">
<p><span class="badge ${f.impact}">${IMPACT_LABEL[f.impact]}</span>${f.ignored ? '<span class="badge ignored">Ignored</span>' : ''}<span class="what">${e(f.summary)}</span> <span>(rule <code>${e(f.ruleId)}</code>)</span></p>
<dl class="detail">
${
  f.ignored
    ? `<dt>Ignored</dt><dd>Until ${e(f.ignored.expires)}: ${e(f.ignored.reason)}. Still a failure; the team's CI gate does not count it.</dd>
`
    : ''
}<dt>Element</dt><dd><code>${e(f.selector)}</code></dd>
<dt>Markup</dt><dd>${snippet(f.html)}</dd>
${screenshot(f)}<dt>How to fix</dt><dd><pre>${e(f.fix)}</pre></dd>
<dt>Learn more</dt><dd>${e(f.description)} ${link(f.help, `Rule ${f.ruleId} explained`)}</dd>
</dl>
</li>`;
}

function reviewItem(n: NeedsReviewItem): string {
  return `<li>
<p><span class="badge review">Needs review</span><span class="what">${e(n.summary)}</span> <span>(rule <code>${e(n.ruleId)}</code>)</span></p>
<dl class="detail">
<dt>Element</dt><dd><code>${e(n.selector)}</code></dd>
<dt>Markup</dt><dd>${snippet(n.html)}</dd>
<dt>Why a person must check</dt><dd class="lines">${e(n.reason)}</dd>
${n.question ? `<dt>Question</dt><dd>${e(n.question)}</dd>\n` : ''}${n.howToCheck ? `<dt>How to check</dt><dd>${e(n.howToCheck)}</dd>\n` : ''}<dt>Learn more</dt><dd>${e(n.description)} ${link(n.help, `Rule ${n.ruleId} explained`)}</dd>
</dl>
</li>`;
}

const LLM_CHECK: Record<LlmFinding['check'], string> = {
  'image-alt': 'Alternative text',
  'link-purpose': 'Link purpose',
  'page-title': 'Page title',
};

function llmItem(f: LlmFinding): string {
  return `<li class="llm">
<p><span class="badge llm">LLM</span><span class="what">${LLM_CHECK[f.check]}: ${e(f.description)}</span></p>
<dl class="detail">
<dt>Confidence</dt><dd>${Math.round(f.confidence * 100)}% (${e(f.provider)} ${e(f.model)})</dd>
<dt>Element</dt><dd><code>${e(f.selector)}</code></dd>
<dt>Markup</dt><dd>${snippet(f.html)}</dd>
${f.suggestion !== null ? `<dt>Suggestion</dt><dd>${e(f.suggestion)}</dd>` : ''}
</dl>
</li>`;
}

/** Elements the per-rule cap left out, per criterion and page: `more(criterion, page)` says how many and of which rules. */
type Omissions = (criterion: string | null, pageUrl: string) => Array<{ ruleId: string; count: number }>;

function omissionsOf(r: AuditResult, kind: 'findings' | 'needsReview'): Omissions {
  return (criterion, pageUrl) =>
    (r.omitted ?? [])
      .filter(
        (o) =>
          o.pageUrl === pageUrl &&
          o[kind] > 0 &&
          (criterion === null ? o.successCriteria.length === 0 : o.successCriteria.includes(criterion)),
      )
      .map((o) => ({ ruleId: o.ruleId, count: o[kind] }));
}

function omittedNote(left: Array<{ ruleId: string; count: number }>, cap: number | undefined): string {
  if (left.length === 0) return '';
  const rules = left.map((o) => `${o.count} more of <code>${e(o.ruleId)}</code>`).join(', ');
  return `<p class="omitted">Not listed: ${rules} on this page, counted above (the report lists at most ${cap ?? 'a fixed number of'} elements per rule and page).</p>`;
}

function grouped<T extends { successCriteria: string[]; pageUrl: string; level: string }>(
  groups: CriterionGroup<T>[],
  prefix: string,
  item: (t: T) => string,
  more: Omissions,
  cap: number | undefined,
): string {
  return groups
    .map((g) => {
      const level = g.pages[0]?.items[0]?.level;
      const id = g.criterion === null ? `${prefix}-unmapped` : criterionAnchor(prefix, g.criterion);
      const count =
        g.count + g.pages.reduce((n, p) => n + more(g.criterion, p.url).reduce((m, o) => m + o.count, 0), 0);
      // Unnamed sections: one region landmark per criterion would drown the page's few real ones.
      return `<section>
<h3 id="${id}">${criterionHeading(g.criterion, level)}: ${plural(count, 'element')} on ${plural(g.pages.length, 'page')}</h3>
${g.pages.map((p) => `<h4>${link(p.url)}</h4>\n<ol class="findings">\n${p.items.map(item).join('\n')}\n</ol>${omittedNote(more(g.criterion, p.url), cap)}`).join('\n')}
</section>`;
    })
    .join('\n');
}

function verdict(r: AuditResult): string {
  const audited = r.pages.filter((p) => p.status === 'audited').length;
  const target = `WCAG ${e(r.wcagVersion)} level ${e(r.wcagLevel)}`;
  if (r.conformant) {
    return `<p class="verdict-pass">No failures found</p><p>Automated checks found no failure of ${target} on ${plural(audited, 'page')}. They cover only part of WCAG: ${plural(r.stats.needsReview, 'item')} need review and criteria without automated checks need a manual evaluation.</p>`;
  }
  if (r.stats.totalFindings === 0) {
    return `<p class="verdict-fail">Not established</p><p>No failure of ${target} was found, but ${plural(r.stats.failedPages, 'page')} could not be audited.</p>`;
  }
  const failing = new Set(r.findings.map((f) => f.pageUrl)).size;
  const criteria = new Set(r.findings.flatMap((f) => f.successCriteria)).size;
  return `<p class="verdict-fail">Does not conform</p><p>${plural(r.stats.totalFindings, 'element')} fail ${plural(criteria, 'success criterion', 'success criteria')} of ${target} on ${failing} of ${plural(audited, 'audited page')}.</p>`;
}

function stats(r: AuditResult): string {
  const rows: [string, number][] = [
    ['Pages audited', r.stats.totalPages - r.stats.failedPages],
    ['Pages not audited', r.stats.failedPages],
    ['Failing elements', r.stats.totalFindings],
    ['Critical', r.stats.critical],
    ['Serious', r.stats.serious],
    ['Moderate', r.stats.moderate],
    ['Minor', r.stats.minor],
    ['Need review', r.stats.needsReview],
  ];
  if (r.stats.ignored !== undefined) rows.push(['Ignored by rules', r.stats.ignored]);
  if (r.llm) rows.push(['LLM judgements', r.llm.findings.length]);
  return `<dl class="stats">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

function fixFirst(r: AuditResult): string {
  const rules = rulePriorities(r);
  if (rules.length === 0) return '';
  const items = rules.map((p) => {
    const target = p.criteria.length > 0 ? criterionAnchor('sc', p.criteria[0]!) : 'sc-unmapped';
    const criteria = p.criteria.map((c) => `${e(c)}${criterionName(c) ? ` ${e(criterionName(c)!)}` : ''}`).join(', ');
    return `<li><span class="badge ${p.impact}">${IMPACT_LABEL[p.impact]}</span><a href="#${target}">${e(p.summary)}</a> <span>(rule <code>${e(p.ruleId)}</code>)</span>: ${plural(p.elements, 'element')} on ${plural(p.pages, 'page')}${criteria ? `; ${criteria}` : ''}</li>`;
  });
  return `<h3 id="fix-first">What to fix first</h3>
<p>The failing rules, most severe first and then by how many elements fail them. One change to a shared template or style often fixes many elements at once.</p>
<ol class="priorities">
${items.join('\n')}
</ol>`;
}

const MERGE_REASON: Record<MergeReason, string> = {
  'same-url': 'redirects here',
  canonical: 'canonical URL',
  'same-content': 'same document',
};

/** The other URLs the crawl found that are this page, so a reader missing one in the table knows where it went. */
function mergedNote(p: PageResult): string {
  const merged = p.mergedUrls ?? [];
  if (merged.length === 0) return '';
  return `<br><span>Also found as ${merged.map((m) => `${link(m.url)} (${MERGE_REASON[m.reason]})`).join(', ')}; counted once</span>`;
}

function pageRow(p: PageResult): string {
  if (p.status === 'failed') {
    return `<tr><th scope="row">${link(p.url)}${mergedNote(p)}</th><td colspan="8">Not audited: ${e(p.error ?? 'unknown error')}</td></tr>`;
  }
  const s = p.stats;
  return `<tr><th scope="row">${link(p.url)}${p.title ? `<br><span>${e(p.title)}</span>` : ''}${mergedNote(p)}</th><td>Audited</td><td class="num">${p.score ?? '–'}</td><td class="num">${s.findings}</td><td class="num">${s.critical}</td><td class="num">${s.serious}</td><td class="num">${s.moderate}</td><td class="num">${s.minor}</td><td class="num">${s.needsReview}</td></tr>`;
}

function pagesTable(pages: PageResult[]): string {
  // Nine columns do not fit a narrow window (320 CSS px, 1280 px at 400%): the table scrolls inside its own
  // region, which the keyboard can reach and scroll, instead of the whole page scrolling sideways.
  return `<div class="table-scroll" role="region" aria-labelledby="pages-caption" tabindex="0"><table>
<caption id="pages-caption">${plural(pages.length, 'page')}, in the order they were audited</caption>
<thead><tr><th scope="col">Page</th><th scope="col">Status</th><th scope="col">Score</th><th scope="col">Failing elements</th><th scope="col">Critical</th><th scope="col">Serious</th><th scope="col">Moderate</th><th scope="col">Minor</th><th scope="col">Need review</th></tr></thead>
<tbody>
${pages.map(pageRow).join('\n')}
</tbody>
</table></div>`;
}

/** The team's ignore rules: what each matches, why, until when, and what it hides (or, expired, no longer hides). */
function ignoreSection(rules: readonly IgnoreRuleOutcome[]): string {
  const row = (r: IgnoreRuleOutcome) => {
    const what = [
      r.rule !== undefined ? `rule <code>${e(r.rule)}</code>` : '',
      r.selector !== undefined ? `element <code>${e(r.selector)}</code>` : '',
      r.url !== undefined ? `pages <code>${e(r.url)}</code>` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const status =
      r.status === 'active'
        ? `In force until ${e(r.expires)}; hides ${plural(r.matched, 'failure')}`
        : `Expired ${e(r.expires)}; no longer hides ${plural(r.matched, 'failure')}, counted again`;
    return `<tr><td>${what}</td><td>${e(r.reason)}</td><td>${status}</td></tr>`;
  };
  return `<section aria-labelledby="ignored">
<h2 id="ignored">Ignore rules</h2>
<p>The team's rules for known failures. A failure a rule in force matches is listed above marked <em>Ignored</em> and still counted in the score and conformance; only the team's CI gate leaves it out. An expired rule hides nothing.</p>
<div class="table-scroll" role="region" aria-labelledby="ignored-caption" tabindex="0"><table>
<caption id="ignored-caption">${plural(rules.length, 'ignore rule')}</caption>
<thead><tr><th scope="col">Matches</th><th scope="col">Reason</th><th scope="col">Status</th></tr></thead>
<tbody>
${rules.map(row).join('\n')}
</tbody>
</table></div>
</section>`;
}

function llmSection(llm: LlmOutcome): string {
  const status =
    llm.status === 'completed'
      ? `<p>${e(llm.provider)} ${e(llm.model)} judged what automated rules cannot: whether alternative text describes its image, whether link text says where a link goes, and whether page titles fit their pages. These judgements are suggestions for a person to check; they never change the score or the conformance result.</p>`
      : `<p class="note">The LLM review (${e(llm.provider)} ${e(llm.model)}) ${llm.status === 'partial' ? 'judged only some pages' : 'did not complete'}: ${e(llm.error ?? 'no reason given')}. The rest of this report does not depend on it.</p>`;
  const body =
    llm.findings.length > 0
      ? grouped(groupByCriterion(llm.findings), 'llm', llmItem, () => [], undefined)
      : '<p>The model raised nothing.</p>';
  return `<section aria-labelledby="llm"><h2 id="llm">LLM review (not counted)</h2>\n${status}\n${body}\n</section>`;
}

export function renderHtmlReport(r: AuditResult): string {
  const audited = r.pages.filter((p) => p.status === 'audited').length;
  const date = r.finishedAt.slice(0, 10);
  const nav: [string, string][] = [
    ['summary', 'Summary'],
    ['failures', 'Failures by criterion'],
    ['pages', 'Pages'],
    ['review', 'Needs review'],
  ];
  nav.push(['passed', 'Passed checks']);
  if (r.bestPractices) nav.push(['best', 'Best practices']);
  if (r.ignoreRules?.length) nav.push(['ignored', 'Ignore rules']);
  if (r.llm) nav.push(['llm', 'LLM review']);
  const failures =
    r.findings.length > 0
      ? grouped(
          groupByCriterion(r.findings),
          'sc',
          findingItem,
          omissionsOf(r, 'findings'),
          r.engine.maxElementsPerRule,
        )
      : '<p>Automated checks found no failing element.</p>';
  const review =
    r.needsReview.length > 0
      ? `<p>Automated checks could not decide on these elements (for example text over an image or a gradient). They are not counted as failures; a person has to look.</p>\n${grouped(groupByCriterion(r.needsReview), 'review', reviewItem, omissionsOf(r, 'needsReview'), r.engine.maxElementsPerRule)}`
      : '<p>Nothing was left for review.</p>';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>Accessibility report: ${e(r.url)} (WCAG ${e(r.wcagVersion)} ${e(r.wcagLevel)})</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<a class="skip" href="#main">Skip to the report</a>
<header>
<h1>Accessibility report</h1>
<p class="lead">${link(r.url)} · WCAG ${e(r.wcagVersion)} level ${e(r.wcagLevel)} · ${plural(audited, 'page')} audited${r.stats.failedPages ? `, ${r.stats.failedPages} not` : ''} · ${e(date)}</p>
</header>
<nav aria-label="Contents"><ul>${nav.map(([id, label]) => `<li><a href="#${id}">${label}</a></li>`).join('')}</ul></nav>
<main id="main" tabindex="-1">
<section aria-labelledby="summary">
<h2 id="summary">Summary</h2>
<div class="summary">
<div class="card"><h3>Score</h3><p class="score">${r.score}<span class="lead"> / 100</span></p><p class="lead">Weighted by impact, as Lighthouse scores accessibility.</p></div>
<div class="card"><h3>Conformance</h3>${verdict(r)}</div>
<div class="card"><h3>Counts</h3>${stats(r)}</div>
</div>
${fixFirst(r)}
</section>
<section aria-labelledby="failures">
<h2 id="failures">Failures by success criterion</h2>
${failures}
</section>
<section aria-labelledby="pages">
<h2 id="pages">Pages</h2>
${pagesTable(r.pages)}
</section>
<section aria-labelledby="review">
<h2 id="review">Needs review</h2>
${review}
</section>
${passedSection(r)}
${r.bestPractices ? bestPracticeSection(r.bestPractices) : ''}
${r.ignoreRules?.length ? ignoreSection(r.ignoreRules) : ''}
${r.llm ? llmSection(r.llm) : ''}
</main>
<footer>
<p>Checked with axe-core ${e(r.engine.axeVersion)} in ${e(r.engine.browser)} (rules tagged ${e(r.config.axeTags.join(', '))}) from ${e(r.startedAt)} to ${e(r.finishedAt)}. Automated checks find only part of the accessibility problems a page can have.</p>
</footer>
</body>
</html>
`;
}

/** The rules that checked something and failed nowhere, as Lighthouse lists its passed audits. */
function passedSection(r: AuditResult): string {
  const passed = r.rules.filter((x) => x.passedPages > 0 && x.failedPages === 0);
  const items = passed
    .map(
      (x) =>
        `<li><code>${e(x.ruleId)}</code> (${x.successCriteria.map(e).join(', ') || 'no criterion'}): passed on ${plural(x.passedPages, 'page')}${x.needsReviewPages ? `, ${plural(x.needsReviewPages, 'page')} with items to review` : ''}</li>`,
    )
    .join('\n');
  return `<section aria-labelledby="passed">
<h2 id="passed">Passed checks</h2>
${passed.length > 0 ? `<p>These rules found elements to check and no failure.</p>\n<ul class="passed">\n${items}\n</ul>` : '<p>No rule passed on every page it applied to.</p>'}
</section>`;
}

/** axe's best-practice rules, when the audit asked for them: apart, never counted. */
function bestPracticeSection(best: NonNullable<AuditResult['bestPractices']>): string {
  const items = best.findings
    .map(
      (f) =>
        `<li><p><span class="what">${e(f.summary)}</span> <span>(rule <code>${e(f.ruleId)}</code>)</span></p><dl class="detail"><dt>Element</dt><dd><code>${e(f.selector)}</code></dd><dt>Page</dt><dd>${link(f.pageUrl)}</dd></dl></li>`,
    )
    .join('\n');
  return `<section aria-labelledby="best">
<h2 id="best">Best practices (not counted)</h2>
<p>axe-core's best-practice rules are not WCAG requirements: they change neither the score nor the conformance.</p>
${best.findings.length > 0 ? `<ul class="findings">\n${items}\n</ul>` : '<p>No best-practice rule failed.</p>'}
</section>`;
}
