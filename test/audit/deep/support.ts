import assert from 'node:assert/strict';
import type { AuditHarness } from '../support.ts';

/** The deep audit of one page through `POST /audit`, at the level asked (AA by default). */
export async function deepAudit(h: AuditHarness, url: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await h.call('POST', '/audit', { url, deep: true, ...extra });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The findings of one rule, as `[selector, fix]`. */
export function failures(result: any, ruleId: string): Array<{ selector: string; fix: string; target: unknown }> {
  return result.findings
    .filter((f: any) => f.ruleId === ruleId)
    .map((f: any) => ({ selector: f.selector, fix: f.fix, target: f.target }));
}

export function reviews(result: any, ruleId: string): any[] {
  return result.needsReview.filter((n: any) => n.ruleId === ruleId);
}

export function ruleOutcome(result: any, ruleId: string): any {
  return result.rules.find((r: any) => r.ruleId === ruleId);
}
