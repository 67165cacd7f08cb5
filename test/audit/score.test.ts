import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Result } from 'axe-core';
import { assembleResult, type AuditedPage } from '../../src/audit/result/assemble.ts';
import type { AxeOutcome } from '../../src/audit/engine/page-audit.ts';
import type { AuditConfig, Impact } from '../../src/audit/result/types.ts';

/**
 * Worked examples of the score as docs/audit.md states it: per page, round(100 × Σ weight of passed rules / Σ weight
 * of applied rules) with critical 10, serious 7, moderate 3, minor 1, a rule counting once however many elements fail;
 * the audit's score is the rounded mean of its audited pages' scores. Every expected number below is worked out by
 * hand in its comment, so a change to any weight, to the rounding or to what counts fails here.
 */

/** The axe impacts of the rules used below (axe-core's rule metadata). */
const IMPACT: Record<string, Impact> = {
  'image-alt': 'critical',
  label: 'critical',
  'color-contrast': 'serious',
  'html-has-lang': 'serious',
  'document-title': 'serious',
  'link-name': 'serious',
  'frame-title': 'serious',
  list: 'serious',
  'avoid-inline-spacing': 'serious',
  'meta-viewport': 'moderate',
  'server-side-image-map': 'minor',
};
const ruleImpact = (id: string): Impact | null => IMPACT[id] ?? null;

const TAGS = ['wcag2a', 'wcag111'];

/** A rule as axe lists it among violations or incomplete, with `elements` elements. */
function axeRule(id: string, elements: number, impact: Impact | null = IMPACT[id] ?? null): Result {
  return {
    id,
    impact,
    tags: TAGS,
    description: `${id} description`,
    help: `${id} help`,
    helpUrl: `https://dequeuniversity.com/rules/axe/${id}`,
    nodes: Array.from({ length: elements }, (_, i) => ({
      html: `<div id="e${i}"></div>`,
      target: [`#e${i}`],
      impact,
      any: [],
      all: [],
      none: [],
      failureSummary: 'Fix this',
    })),
  } as unknown as Result;
}

interface PageSpec {
  failed?: Array<[string, number]>;
  passed?: string[];
  inapplicable?: string[];
  needsReview?: string[];
}

function outcome(spec: PageSpec): AxeOutcome {
  return {
    violations: (spec.failed ?? []).map(([id, n]) => axeRule(id, n)),
    incomplete: (spec.needsReview ?? []).map((id) => axeRule(id, 1)),
    passed: (spec.passed ?? []).map((id) => ({ id, tags: TAGS })),
    inapplicable: (spec.inapplicable ?? []).map((id) => ({ id, tags: TAGS })),
    omitted: [],
  };
}

function audited(path: string, axe: AxeOutcome): AuditedPage {
  const url = `https://example.test${path}`;
  return {
    requestedUrl: url,
    depth: 0,
    url,
    httpStatus: 200,
    title: path,
    durationMs: 10,
    axe,
    error: null,
    mergedUrls: [],
  };
}

const config: AuditConfig = {
  wcagVersion: '2.2',
  wcagLevel: 'AA',
  crawl: { enabled: true, depth: 2, maxPages: 10 },
  llm: { enabled: false, provider: null, model: null },
  axeTags: ['wcag2a', 'wcag2aa'],
};

function assemble(pages: AuditedPage[]) {
  return assembleResult({
    url: 'https://example.test/',
    config,
    pages,
    ruleImpact,
    engine: { axeVersion: 'x', browser: 'Chromium', maxElementsPerRule: 100 },
    startedAt: new Date(0),
    finishedAt: new Date(1),
  });
}

// Applied 10 + 7 + 7 + 7 + 3 + 1 = 35; passed 7 + 7 + 3 + 1 = 18; 100 × 18 / 35 = 51.43 → 51.
// Three failing image-alt elements weigh what one would; inapplicable and needs-review-only rules weigh nothing.
const HOME = outcome({
  failed: [
    ['image-alt', 3],
    ['color-contrast', 5],
  ],
  passed: ['html-has-lang', 'document-title', 'meta-viewport', 'server-side-image-map'],
  inapplicable: ['frame-title', 'list'],
  needsReview: ['avoid-inline-spacing'],
});
// Applied 1 + 3 + 10 + 7 + 10 + 7 = 38; passed 10 + 7 + 10 + 7 = 34; 100 × 34 / 38 = 89.47 → 89.
const PRODUCTS = outcome({
  failed: [
    ['server-side-image-map', 1],
    ['meta-viewport', 1],
  ],
  passed: ['image-alt', 'color-contrast', 'label', 'link-name'],
});
// Applied 10 + 7 + 7 + 7 + 1 = 32 (color-contrast passed some elements and failed one: it counts once, failed);
// passed 7 + 7 + 1 = 15; 100 × 15 / 32 = 46.875 → 47.
const CONTACT = outcome({
  failed: [
    ['label', 2],
    ['color-contrast', 1],
  ],
  passed: ['link-name', 'document-title', 'server-side-image-map', 'color-contrast'],
});
// Nothing applied: 100.
const EMPTY = outcome({ inapplicable: ['image-alt', 'label'], needsReview: ['color-contrast'] });

test('one page: critical and serious failures among passes of every impact score 51', () => {
  const r = assemble([audited('/', HOME)]);
  assert.equal(r.pages[0]!.score, 51);
  assert.equal(r.score, 51);
  assert.equal(r.stats.critical, 3, 'the elements are all counted in stats, though the rule weighs once');
  assert.equal(r.stats.serious, 5);
});

test('one page: minor and moderate failures beside passing critical and serious rules score 89', () => {
  assert.equal(assemble([audited('/products', PRODUCTS)]).pages[0]!.score, 89);
});

test('one page: a rule that passed on some elements and failed on others counts once, as failed: 47', () => {
  assert.equal(assemble([audited('/contact', CONTACT)]).pages[0]!.score, 47);
});

test('a page where no rule applied scores 100', () => {
  assert.equal(assemble([audited('/empty', EMPTY)]).pages[0]!.score, 100);
});

test('serious passed and minor failed is 7 / 8 = 87.5, rounded half up to 88', () => {
  const r = assemble([audited('/', outcome({ failed: [['server-side-image-map', 1]], passed: ['link-name'] }))]);
  assert.equal(r.pages[0]!.score, 88);
});

test("a rule without a known impact weighs by the violation's impact when it failed, else as moderate", () => {
  // Failed, unknown to the metadata, reported minor: 1. Passed, unknown: moderate, 3. html-has-lang: serious, 7.
  // Applied 1 + 3 + 7 = 11, passed 10; 100 × 10 / 11 = 90.91 → 91.
  const axe = outcome({ passed: ['custom-passed', 'html-has-lang'] });
  axe.violations.push(axeRule('custom-failed', 1, 'minor'));
  assert.equal(assemble([audited('/', axe)]).pages[0]!.score, 91);
});

test("several pages: the audit's score is the rounded mean of the audited pages' scores; a failed page is left out", () => {
  const broken: AuditedPage = {
    requestedUrl: 'https://example.test/broken',
    depth: 1,
    url: 'https://example.test/broken',
    httpStatus: 500,
    title: null,
    durationMs: 5,
    axe: null,
    error: 'the page answered HTTP 500',
    mergedUrls: [],
  };
  const r = assemble([
    audited('/', HOME),
    audited('/products', PRODUCTS),
    audited('/contact', CONTACT),
    audited('/empty', EMPTY),
    broken,
  ]);
  assert.deepEqual(
    r.pages.map((p) => p.score),
    [51, 89, 47, 100, null],
  );
  // (51 + 89 + 47 + 100) / 4 = 71.75 → 72.
  assert.equal(r.score, 72);
  // (47 + 100) / 2 = 73.5 → 74: the mean is of the rounded page scores (of 46.875 and 100 it would be 73).
  assert.equal(assemble([audited('/contact', CONTACT), audited('/empty', EMPTY)]).score, 74);
  // (89 + 100) / 2 = 94.5 → 95.
  assert.equal(assemble([audited('/products', PRODUCTS), audited('/empty', EMPTY)]).score, 95);
  assert.equal(assemble([broken]).score, 0, 'no audited page: 0');
});
