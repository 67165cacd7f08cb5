import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import type { BrowserContext, Frame, Page } from 'playwright-core';

/**
 * Runs axe-core in a page and every frame in it, the way `@axe-core/playwright`'s `analyze()` does
 * (`runPartial` in each frame, cross-origin frames included, `finishRun` in a blank page the audited site
 * cannot reach) but with two costs taken out, measured in bench/README.md:
 *
 * - A page without frames — most pages — is checked with one `axe.run` in the page. That is what
 *   `runPartial` plus `finishRun` compute for a single frame, without the second page.
 * - Pages with frames share one blank page per audit for `finishRun`, with axe injected into it once,
 *   instead of opening a new page (a new renderer) and injecting axe's 500 KB into it for every page.
 *
 * Options and `axe.configure` are those `analyze()` uses, so results are the same (help URLs included).
 */

const require = createRequire(import.meta.url);
/**
 * axe's minified build (650 KB), the same code as `axe.source` (the 1.5 MB readable build that `analyze()`
 * sends): each frame and page gets it through the browser protocol and compiles it, so size is time.
 */
const SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
/** The version of the axe the pages get, from its package: importing axe-core in Node for `axe.version` held ~3 MB of heap. */
export const AXE_VERSION = (require('axe-core/package.json') as { version: string }).version;
/** The configure call is `analyze()`'s for runPartial-capable axe (allowedOrigins, branding), so results match. */
const CONFIGURE = 'axe.configure({ allowedOrigins: ["<same_origin>"], branding: { application: "playwright" } });';

/** The reporter `run` asks for: axe's own v1 report, of at most `maxElementsPerRule` elements per rule and outcome. */
const CAPPED_REPORTER = 'platform-capped';

/** Elements axe found beyond the cap, per rule: counted, not described. */
export interface OmittedElements {
  ruleId: string;
  /** Failing elements left out, by their impact. */
  violations: { [impact in 'critical' | 'serious' | 'moderate' | 'minor']?: number };
  /** Elements axe could not decide on, left out. */
  incomplete: number;
}

export type CappedResults = AxeResults & { omitted: OmittedElements[] };

/**
 * Registers, in the page, a reporter that leaves out a rule's elements beyond `maxElementsPerRule` (per outcome)
 * before axe's v1 reporter describes them. Describing an element (its CSS selector, made unique against the whole
 * document, and its markup) is about half of axe's time on a page with thousands of failures (on a 17,500-element
 * page, measured in bench/README.md), so a capped element costs nothing but its count. Runs in the page.
 */
function registerCappedReporter(name: string): void {
  // What axe hands a reporter: each rule's node results already grouped by outcome, elements not yet described.
  type RawNode = { impact?: string | null };
  type RawRule = {
    id: string;
    impact?: string | null;
    passes: RawNode[];
    violations: RawNode[];
    incomplete: RawNode[];
  };
  type Reporter = (
    results: RawRule[],
    options: { platformMaxElements?: number },
    done: (report: object) => void,
    fail: (err: unknown) => void,
  ) => void;
  const a = (
    globalThis as unknown as { axe: { getReporter(n: string): Reporter; addReporter(n: string, r: Reporter): void } }
  ).axe;
  const v1 = a.getReporter('v1');
  a.addReporter(name, (results, options, done, fail) => {
    const max = options.platformMaxElements ?? Number.MAX_SAFE_INTEGER;
    const omitted: Array<{ ruleId: string; violations: Record<string, number>; incomplete: number }> = [];
    for (const rule of results) {
      const violations: Record<string, number> = {};
      for (const node of rule.violations.slice(max)) {
        const impact = node.impact ?? rule.impact ?? 'moderate';
        violations[impact] = (violations[impact] ?? 0) + 1;
      }
      const incomplete = Math.max(0, rule.incomplete.length - max);
      if (incomplete > 0 || rule.violations.length > max) omitted.push({ ruleId: rule.id, violations, incomplete });
      rule.violations = rule.violations.slice(0, max);
      rule.incomplete = rule.incomplete.slice(0, max);
    }
    v1(results, options, (report) => done({ ...report, omitted }), fail);
  });
}

/** A frame whose scripts keep its thread busy cannot take axe; its partial result is then left out (as analyze() does, after 1 s). */
const FRAME_INJECT_TIMEOUT_MS = 5_000;

interface FrameContext {
  frameSelector: unknown;
  frameContext: unknown;
}

/**
 * runPartial's result as axe's JSON, which is what analyze() hands finishRun too. Every result crosses the protocol
 * as one string rather than as objects: Playwright serialises, validates and rebuilds an object result value by
 * value (on the audit bench's pages ~20 MB of short-lived garbage a page, 60 % of what the service allocated;
 * bench/README.md, issue 33), while a string is copied once and parsed once.
 */
type Partial = string | null;

export class AxeRunner {
  private readonly context: BrowserContext;
  private finisher: Promise<Page> | null = null;
  /** finishRun calls take turns in the shared blank page. */
  private finishing: Promise<unknown> = Promise.resolve();

  constructor(context: BrowserContext) {
    this.context = context;
  }

  /** axe's results for the page with every frame in it, with at most `maxElementsPerRule` elements per rule and outcome described. */
  async run(page: Page, axeOptions: RunOptions, maxElementsPerRule = Number.MAX_SAFE_INTEGER): Promise<CappedResults> {
    const options = { ...axeOptions, reporter: CAPPED_REPORTER, platformMaxElements: maxElementsPerRule } as RunOptions;
    const main = page.mainFrame();
    await main.evaluate(SOURCE);
    await main.evaluate(CONFIGURE);
    await main.evaluate(registerCappedReporter, CAPPED_REPORTER);
    const context = { include: [], exclude: [] };
    // Decided and started in one turn of the page's event loop, so a frame added meanwhile cannot slip in half-seen.
    const single = await main.evaluate(
      ([ctx, opts]) => {
        const a = (
          globalThis as unknown as {
            axe: { utils: { getFrameContexts(c: unknown): unknown[] }; run(c: unknown, o: unknown): Promise<unknown> };
          }
        ).axe;
        if (a.utils.getFrameContexts(ctx).length > 0) return null;
        return a.run(ctx, { ...(opts as object), iframes: false }).then((r) => JSON.stringify(r));
      },
      [context, options] as const,
    );
    if (single !== null) return JSON.parse(single) as CappedResults;
    const partials = await this.partialsOf(main, context, options, true);
    return this.finish(partials, options);
  }

  /** runPartial in `frame` and, recursively, in the frames axe names in it; a child that fails contributes null (finishRun expects that). */
  private async partialsOf(
    frame: Frame,
    context: unknown,
    options: RunOptions,
    initiator: boolean,
  ): Promise<Partial[]> {
    const frameContexts = (await frame.evaluate(
      (ctx) =>
        (
          globalThis as unknown as { axe: { utils: { getFrameContexts(c: unknown): FrameContext[] } } }
        ).axe.utils.getFrameContexts(ctx),
      context,
    )) as FrameContext[];
    const own = frame.evaluate(
      ([ctx, opts]) =>
        (globalThis as unknown as { axe: { runPartial(c: unknown, o: unknown): Promise<unknown> } }).axe
          .runPartial(ctx, opts)
          .then((r) => JSON.stringify(r)),
      [context, options] as const,
    );
    own.catch(() => {});
    const children: Promise<Partial[]>[] = [];
    for (const { frameSelector, frameContext } of frameContexts) {
      children.push(
        (async () => {
          try {
            const handle = await frame.evaluateHandle(
              (sel) =>
                (
                  globalThis as unknown as { axe: { utils: { shadowSelect(s: unknown): Element | null } } }
                ).axe.utils.shadowSelect(sel),
              frameSelector,
            );
            const child = await handle.asElement()?.contentFrame();
            if (!child) return [null];
            await injectInto(child);
            return await this.partialsOf(child, frameContext, options, false);
          } catch {
            return [null];
          }
        })(),
      );
    }
    try {
      const parent = await own;
      return [parent, ...(await Promise.all(children)).flat(1)];
    } catch (err) {
      if (initiator) throw err;
      return [null];
    }
  }

  private async finish(partials: Partial[], options: RunOptions): Promise<CappedResults> {
    const turn = this.finishing.then(async () => {
      const blank = await this.blankPage();
      return blank.evaluate(
        ([p, o]) =>
          (globalThis as unknown as { axe: { finishRun(p: unknown, o: unknown): Promise<unknown> } }).axe
            .finishRun(
              p.map((one) => (one === null ? null : JSON.parse(one))),
              o,
            )
            .then((r) => JSON.stringify(r)),
        [partials, options] as const,
      );
    });
    this.finishing = turn.catch(() => {});
    return JSON.parse(await turn) as CappedResults;
  }

  private blankPage(): Promise<Page> {
    if (!this.finisher) {
      const opening = (async () => {
        const page = await this.context.newPage();
        await page.evaluate(SOURCE);
        await page.evaluate(CONFIGURE);
        await page.evaluate(registerCappedReporter, CAPPED_REPORTER);
        return page;
      })();
      // A failed start (the context closing) is tried again by the next page rather than remembered.
      opening.catch(() => {
        if (this.finisher === opening) this.finisher = null;
      });
      this.finisher = opening;
    }
    return this.finisher;
  }

  /** The shared blank page goes with the audit (closing the context would close it too). */
  async close(): Promise<void> {
    const page = await this.finisher?.catch(() => null);
    this.finisher = null;
    await page?.close().catch(() => {});
  }
}

async function injectInto(frame: Frame): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('axe could not be injected into a frame in time')),
      FRAME_INJECT_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([frame.evaluate(SOURCE), timeout]);
    await frame.evaluate(CONFIGURE);
  } finally {
    clearTimeout(timer);
  }
}
