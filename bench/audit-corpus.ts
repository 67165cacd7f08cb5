/**
 * Accessibility corpus benchmark (issue 29): the pages of bench/a11y-corpus (one folder per rule, a manifest
 * saying each case's expected outcome and WCAG criteria) served on 127.0.0.1 and audited through the service's
 * API — `platform start audit` in its own process on real PostgreSQL, one job per case, the default audit and
 * the deep audit — and by Siteimprove Alfa (alfa-rules through alfa-playwright) on the same Chromium.
 *
 * Per rule and overall it prints: failed cases detected (%), false failures on passing cases (% of passing
 * cases; issue 29's target is ≤ 1 %) and needs-review counts. Ours is counted by rule (the case's rule must
 * fail, in the default audit for axe's rules and the deep audit for the browser checks); both engines are also
 * counted by criterion (any rule of the engine that maps to the case's criteria), which is how they compare.
 *
 *   node bench/audit-corpus.ts   (BENCH_POSTGRES_URL=postgres://... CHROMIUM_PATH=...; BENCH_CORPUS_RULES=reflow,label
 *                                 for some rules only; BENCH_ALFA=0 without Alfa; BENCH_CORPUS_JSON=file for every
 *                                 case's outcomes; AUDIT_* settings reach the service)
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findChromium } from '../src/kit/browser.ts';
import { scratchDatabase } from './support/scratch-database.ts';
import { startAlfa, type AlfaPageOutcome } from './support/alfa-engine.ts';
import { startAuditService, type AuditResultLite } from './support/audit-service.ts';
import { readCorpus, serveCorpus, type CorpusCase } from './support/corpus.ts';

const CORPUS = fileURLToPath(new URL('a11y-corpus', import.meta.url));
/** Jobs in flight at once: the service's default AUDIT_CONCURRENCY. */
const IN_FLIGHT = Number(process.env.BENCH_CORPUS_IN_FLIGHT ?? 2);

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

async function pool<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

interface Seen {
  /** The case's rule failed. */
  failed: boolean;
  /** The case's rule asked for review. */
  review: boolean;
  /** A rule mapped to the case's criteria failed / asked. */
  criterionFailed: boolean;
  criterionReview: boolean;
  /** What failed, for reading the misses and false failures. */
  rules: string[];
}

function ours(result: AuditResultLite, c: CorpusCase): Seen {
  const onCriteria = (x: { successCriteria: string[] }) => x.successCriteria.some((s) => c.criteria.includes(s));
  return {
    failed: result.findings.some((f) => f.ruleId === c.rule),
    review: result.needsReview.some((n) => n.ruleId === c.rule),
    criterionFailed: result.findings.some(onCriteria),
    criterionReview: result.needsReview.some(onCriteria),
    rules: [...new Set(result.findings.map((f) => `${f.ruleId} ${f.selector}`))],
  };
}

function alfaSeen(o: AlfaPageOutcome, c: CorpusCase): Seen {
  const failed = c.criteria.some((s) => o.failed.has(s));
  const review = c.criteria.some((s) => o.cantTell.has(s));
  return { failed, review, criterionFailed: failed, criterionReview: review, rules: o.failedRules };
}

interface Tally {
  failing: number;
  passing: number;
  detected: number;
  falseFailures: number;
  reviewOnFailing: number;
  reviewOnPassing: number;
}

function tally(cases: CorpusCase[], seen: (c: CorpusCase) => { hit: boolean; review: boolean }): Tally {
  const t: Tally = { failing: 0, passing: 0, detected: 0, falseFailures: 0, reviewOnFailing: 0, reviewOnPassing: 0 };
  for (const c of cases) {
    const s = seen(c);
    if (c.expected === 'failed') {
      t.failing++;
      if (s.hit) t.detected++;
      if (s.review) t.reviewOnFailing++;
    } else {
      t.passing++;
      if (s.hit) t.falseFailures++;
      if (s.review) t.reviewOnPassing++;
    }
  }
  return t;
}

const pct = (n: number, d: number) => (d === 0 ? '   –  ' : `${((100 * n) / d).toFixed(1).padStart(5)}%`);
const cell = (t: Tally) =>
  `${String(t.detected).padStart(2)}/${String(t.failing).padEnd(2)} ${pct(t.detected, t.failing)}  ${String(t.falseFailures).padStart(2)}/${String(t.passing).padEnd(2)} ${pct(t.falseFailures, t.passing)}  ${String(t.reviewOnFailing).padStart(2)}+${String(t.reviewOnPassing).padEnd(2)}`;

async function main(): Promise<void> {
  const only = process.env.BENCH_CORPUS_RULES?.split(',').filter(Boolean);
  const cases = readCorpus(CORPUS).filter((c) => !only || only.includes(c.rule));
  const chromium = await findChromium();
  const db = await scratchDatabase('bench_corpus');
  const dbName = db.name;
  const site = await serveCorpus(CORPUS);
  const loadBefore = loadAverage();
  const rulesCount = new Set(cases.map((c) => c.rule)).size;
  console.log(
    `audit corpus: ${cases.length} cases of ${rulesCount} rules (${cases.filter((c) => c.expected === 'passed').length} passing) on ${site.origin}; ${chromium}; load average before ${loadBefore}`,
  );
  const service = await startAuditService({
    ...process.env,
    DATABASE_URL: db.url,
    DATA_DIR: `/tmp/${dbName}`,
    AUDIT_PORT: '0',
    AUDIT_ALLOW_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CHROMIUM_PATH: chromium,
  });
  const defaultSeen = new Map<string, Seen>();
  const deepSeen = new Map<string, Seen>();
  const alfa = new Map<string, Seen>();
  let defaultSeconds = 0;
  let deepSeconds = 0;
  let alfaSeconds = 0;
  try {
    let t0 = performance.now();
    await pool(cases, IN_FLIGHT, async (c) => {
      const r = await service.audit(`${site.origin}/${c.path}`, { version: '2.2', level: 'AA' });
      defaultSeen.set(c.path, ours(r, c));
    });
    defaultSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await pool(cases, IN_FLIGHT, async (c) => {
      const r = await service.audit(`${site.origin}/${c.path}`, { version: '2.2', level: c.level, deep: true });
      deepSeen.set(c.path, ours(r, c));
    });
    deepSeconds = (performance.now() - t0) / 1000;
  } finally {
    await service.stop();
  }
  if (process.env.BENCH_ALFA !== '0') {
    const engine = await startAlfa(chromium);
    const t0 = performance.now();
    try {
      for (const c of cases) alfa.set(c.path, alfaSeen(await engine.audit(`${site.origin}/${c.path}`), c));
    } finally {
      await engine.close();
    }
    alfaSeconds = (performance.now() - t0) / 1000;
  }
  await site.close();
  await db.drop();
  rmSync(`/tmp/${dbName}`, { recursive: true, force: true });

  /** Ours by rule: axe's rules as the default audit found them, the browser checks as the deep audit did. */
  const oursByRule = (c: CorpusCase) => {
    const s = (c.engine === 'axe' ? defaultSeen : deepSeen).get(c.path)!;
    return { hit: c.reviewOnly ? s.review : s.failed, review: s.review };
  };
  const oursByCriterion = (c: CorpusCase) => {
    const s = deepSeen.get(c.path)!;
    return { hit: c.reviewOnly ? s.criterionReview : s.criterionFailed, review: s.criterionReview };
  };
  const alfaByCriterion = (c: CorpusCase) => {
    const s = alfa.get(c.path);
    return s ? { hit: c.reviewOnly ? s.review : s.failed, review: s.review } : { hit: false, review: false };
  };

  const rules = [...new Set(cases.map((c) => c.rule))];
  const head = 'detected          false failures    review';
  console.log(
    `\n${'rule'.padEnd(30)} ${'criteria'.padEnd(10)} | ours, by rule: ${head} | ours, by criterion (deep): ${head} | Alfa, by criterion: ${head}`,
  );
  for (const rule of rules) {
    const rc = cases.filter((c) => c.rule === rule);
    const tag = rc[0]!.reviewOnly ? ' (asks)' : '';
    console.log(
      `${(rule + tag).padEnd(30)} ${rc[0]!.criteria.join(',').padEnd(10)} | ${cell(tally(rc, oursByRule))} | ${cell(tally(rc, oursByCriterion))} | ${alfa.size ? cell(tally(rc, alfaByCriterion)) : 'not run'}`,
    );
  }
  const groups: Array<[string, CorpusCase[]]> = [
    ['all rules that fail elements', cases.filter((c) => !c.reviewOnly)],
    ["  axe's rules (default audit)", cases.filter((c) => !c.reviewOnly && c.engine === 'axe')],
    ['  browser checks (deep audit)', cases.filter((c) => !c.reviewOnly && c.engine === 'deep')],
    ['rules that only ask (2.4.3, 2.3.3)', cases.filter((c) => c.reviewOnly)],
  ];
  console.log('');
  for (const [name, gc] of groups) {
    if (gc.length === 0) continue;
    console.log(
      `${name.padEnd(41)} | ${cell(tally(gc, oursByRule))} | ${cell(tally(gc, oursByCriterion))} | ${alfa.size ? cell(tally(gc, alfaByCriterion)) : 'not run'}`,
    );
  }
  const disagree = cases.filter(
    (c) => c.engine === 'axe' && defaultSeen.get(c.path)!.failed !== deepSeen.get(c.path)!.failed,
  );
  console.log(
    `\naxe's rules in the deep audit: ${disagree.length === 0 ? 'same outcome as the default audit on every case' : `differ on ${disagree.map((c) => c.path).join(', ')}`}`,
  );
  console.log(
    `time: default audit ${defaultSeconds.toFixed(1)} s, deep audit ${deepSeconds.toFixed(1)} s (${IN_FLIGHT} jobs at a time), Alfa ${alfaSeconds.toFixed(1)} s (one page at a time) for ${cases.length} pages`,
  );
  const list = (title: string, pick: (c: CorpusCase) => boolean, seen: (c: CorpusCase) => Seen | undefined) => {
    const picked = cases.filter(pick);
    if (picked.length === 0) return;
    console.log(`\n${title}:`);
    for (const c of picked) console.log(`  ${c.path}  ${seen(c)?.rules.join('; ') || ''}`);
  };
  const ourSeen = (c: CorpusCase) => (c.engine === 'axe' ? defaultSeen : deepSeen).get(c.path);
  list('ours, missed', (c) => c.expected === 'failed' && !oursByRule(c).hit, ourSeen);
  list('ours, false failures', (c) => c.expected === 'passed' && oursByRule(c).hit, ourSeen);
  if (alfa.size) {
    list(
      'Alfa, false failures',
      (c) => c.expected === 'passed' && alfaByCriterion(c).hit,
      (c) => alfa.get(c.path),
    );
    list(
      'Alfa found, ours missed',
      (c) => c.expected === 'failed' && alfaByCriterion(c).hit && !oursByRule(c).hit,
      (c) => alfa.get(c.path),
    );
  }
  if (process.env.BENCH_CORPUS_JSON) {
    const out = cases.map((c) => ({
      ...c,
      default: defaultSeen.get(c.path),
      deep: deepSeen.get(c.path),
      alfa: alfa.get(c.path),
    }));
    writeFileSync(process.env.BENCH_CORPUS_JSON, JSON.stringify(out, null, 2));
  }
  console.log(`\nload average after ${loadAverage()}`);
}

await main();
