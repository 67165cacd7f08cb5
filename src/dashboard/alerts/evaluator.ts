import { randomUUID } from 'node:crypto';
import type { Database } from '../../kit/db.ts';
import type { RunContext } from '../sql/run.ts';
import { eachLimited, type Worker } from '../scheduling/loop.ts';
import { nextState } from './condition.ts';
import { claimDueRules, commitEvaluation, renewLease } from './lease.ts';
import { alertPayload } from './message.ts';
import { evaluateRuleQuery } from './run-rule.ts';
import type { AlertRuleRow } from './store.ts';

export interface EvaluatorOptions {
  instanceId: string;
  leaseSeconds: number;
  /** The dashboard's public URL, for the links in notifications. */
  publicUrl: string;
  /** Rules claimed per pass, and evaluated at once (each holds a connection to its source while it runs). */
  batch?: number;
  concurrency?: number;
}

/**
 * The alert evaluator of one instance: claims due rules under a lease, runs each rule's query as its owner, and
 * commits the new state with its notifications while the lease is still held (lease.ts). A graceful stop releases
 * what it claimed without writing; a killed instance's leases run out and another instance evaluates those rules.
 */
export function alertEvaluator(ctx: RunContext & { db: Database }, options: EvaluatorOptions): Worker {
  const batch = options.batch ?? 100;
  const concurrency = options.concurrency ?? 8;
  return {
    name: 'alert evaluator',
    async tick(signal) {
      const token = `${options.instanceId}/${randomUUID()}`;
      const rules = await claimDueRules(ctx.db, token, options.leaseSeconds, batch);
      if (rules.length === 0) return false;
      const renew = setInterval(
        () => void renewLease(ctx.db, token, options.leaseSeconds).catch(() => {}),
        (options.leaseSeconds * 1000) / 3,
      );
      try {
        await eachLimited(rules, concurrency, (rule) => evaluateOne(ctx, rule, token, options.publicUrl, signal));
      } finally {
        clearInterval(renew);
        await ctx.db.query(`UPDATE alert_rules SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`, [
          token,
        ]);
      }
      return rules.length === batch;
    },
  };
}

async function evaluateOne(
  ctx: RunContext,
  rule: AlertRuleRow,
  token: string,
  publicUrl: string,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) return;
  const outcome = await evaluateRuleQuery(ctx, rule, signal);
  if (signal.aborted) return;
  const before = { state: rule.state, pendingSince: rule.pending_since, pendingMinutes: rule.pending_minutes };
  const condition = { op: rule.condition_op, threshold: rule.threshold, thresholdHigh: rule.threshold_high };
  const t = nextState(before, condition, outcome, new Date());
  await commitEvaluation(ctx.db, rule, token, t, outcome.kind === 'error' ? outcome.message : null, () =>
    t.notify ? { kind: t.notify, payload: alertPayload(rule, t, publicUrl) } : null,
  );
}
