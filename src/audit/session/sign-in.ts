import type { BrowserContext, Page } from 'playwright-core';
import { AuditCancelledError, AuditFailedError } from '../engine/audit-errors.ts';
import { navigate, unauditableAnswer } from '../engine/page-answer.ts';
import type { PageTiming } from '../engine/page-audit.ts';
import { settle } from '../engine/page-reads.ts';
import { refusedAt, type Refusal } from '../safety/egress-scope.ts';
import { urlPatternMatcher } from '../url-pattern.ts';
import { secretValue } from './browser-session.ts';
import type { SecretValues, SessionStep } from './types.ts';

/** Why one step did not do what it says, in a person's words. */
class StepError extends Error {}

/**
 * Runs the sign-in steps in a page of the audit's context, which keeps the cookies and storage they leave for the
 * pages audited next; every request they make goes through the audit's egress proxy, so its address guard. A step
 * that fails stops the audit (not retried: a wrong password tried again may lock the account) with an error naming
 * the step. Each step has the page time limit; the page settles after the last one, so a form sent by a click
 * finishes before the first page is audited.
 */
export async function signIn(
  context: BrowserContext,
  steps: readonly SessionStep[],
  secrets: SecretValues,
  timing: PageTiming,
  refusals: readonly Refusal[],
  signal?: AbortSignal,
): Promise<void> {
  if (steps.length === 0) return;
  const page = await context.newPage();
  const refusalsBefore = refusals.length;
  try {
    for (const [index, step] of steps.entries()) {
      if (signal?.aborted) throw new AuditCancelledError();
      try {
        await runStep(page, step, secrets, timing.timeoutMs);
      } catch (err) {
        if (signal?.aborted) throw new AuditCancelledError();
        if (err instanceof AuditFailedError) throw err;
        // A form sent to a refused address fails the step that waits for its answer: the refusal of where the page
        // is says why (the browser's own background requests, refused too, say nothing about the sign-in).
        const why = reason(err, timing.timeoutMs);
        const refused = refusals.slice(refusalsBefore).find((r) => refusedAt(r, page.url()))?.reason;
        throw new AuditFailedError(
          `sign-in step ${index + 1} of ${steps.length} (${describeStep(step)}) failed: ${why}${refused && !why.includes(refused) ? ` (${refused})` : ''}`,
          false,
        );
      }
    }
    await settle(page, timing);
  } finally {
    await page.close().catch(() => {});
  }
}

async function runStep(page: Page, step: SessionStep, secrets: SecretValues, timeout: number): Promise<void> {
  switch (step.action) {
    case 'goto': {
      const response = await navigate(page, step.url, timeout);
      const answer = response && unauditableAnswer(response, page, () => 0);
      if (answer?.kind === 'failed') throw new StepError(answer.error);
      return;
    }
    case 'fill':
      await page.fill(step.selector, 'secret' in step ? secretValue(secrets, step.secret) : step.value, { timeout });
      return;
    case 'click':
      await page.click(step.selector, { timeout });
      return;
    case 'waitForSelector':
      await page.waitForSelector(step.selector, { state: 'visible', timeout });
      return;
    case 'waitForUrl': {
      const matches = urlPatternMatcher(step.url);
      try {
        await page.waitForURL((url) => matches(url.href), { timeout, waitUntil: 'load' });
      } catch (err) {
        if (!isTimeout(err)) throw err;
        throw new StepError(
          `the page did not reach a URL matching ${JSON.stringify(step.url)} within ${seconds(timeout)} s; it is at ${page.url()}`,
        );
      }
      return;
    }
  }
}

/** The step as the error names it: its action and target, never a value it types. */
function describeStep(step: SessionStep): string {
  switch (step.action) {
    case 'goto':
    case 'waitForUrl':
      return `${step.action} ${step.url}`;
    case 'fill':
      return `fill ${step.selector}${'secret' in step ? ` with the secret ${step.secret}` : ''}`;
    default:
      return `${step.action} ${step.selector}`;
  }
}

/** Playwright's error, its first line only: the call log after it repeats what `fill` typed. */
function reason(err: unknown, timeout: number): string {
  if (err instanceof StepError) return err.message;
  if (isTimeout(err)) return `nothing matched within ${seconds(timeout)} s`;
  const message = err instanceof Error ? err.message : String(err);
  const net = /net::(ERR_[A-Z_]+)/.exec(message);
  if (net) return `the page could not be loaded (${net[1]})`;
  return message
    .split('\n')[0]!
    .replace(/^\w+\.\w+:\s*/, '')
    .slice(0, 300);
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}

const seconds = (ms: number) => Math.round(ms / 1000);
