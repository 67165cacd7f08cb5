import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable, type Database } from '../../kit/db.ts';
import type { RunContext } from '../sql/run.ts';
import type { Worker } from '../scheduling/loop.ts';
import { nextState, reminderOf } from './condition.ts';
import { claimDueRules, commitEvaluation, renewLease } from './lease.ts';
import { alertPayload } from './message.ts';
import { evaluateRuleQuery } from './run-rule.ts';
import type { AlertRuleRow } from './store.ts';

export interface EvaluatorOptions {
  instanceId: string;
  leaseSeconds: number;
  /** The dashboard's public URL, for the links in notifications. */
  publicUrl: string;
  /** Rules evaluated at once by this instance (each holds a connection to its source while it runs). */
  concurrency?: number;
}

/**
 * The alert evaluator of one instance: each pass claims as many due rules as it has room for, under a lease in this
 * process's name, and starts them; a slow query holds its own slot, not the instance, so the instance still takes
 * over a dead one's rules meanwhile. Each evaluation runs the rule's query as its owner and commits the new state
 * with its notifications while the lease is still this process's (lease.ts). A graceful stop waits for the
 * evaluations under way; a killed instance's leases run out and another instance evaluates those rules.
 */
export function alertEvaluator(
  ctx: RunContext & { db: Database; log: FastifyBaseLogger },
  options: EvaluatorOptions,
): Worker {
  const capacity = options.concurrency ?? 16;
  const token = `${options.instanceId}/${randomUUID()}`;
  const inFlight = new Map<number, Promise<void>>();
  let renewal: NodeJS.Timeout | undefined;
  const renew = () => void renewLease(ctx.db, token, options.leaseSeconds).catch(() => {});
  return {
    name: 'alert evaluator',
    async tick(signal) {
      const room = capacity - inFlight.size;
      if (room <= 0 || signal.aborted) return null;
      const rules = await claimDueRules(ctx.db, token, options.leaseSeconds, room);
      for (const rule of rules) {
        const run = evaluateOne(ctx, rule, token, options.publicUrl, signal)
          .catch((err: unknown) => ctx.log.error({ err, rule: rule.id }, 'alert evaluation failed'))
          .finally(() => {
            inFlight.delete(rule.id);
            if (inFlight.size === 0) clearInterval(renewal);
          });
        inFlight.set(rule.id, run);
      }
      if (inFlight.size > 0 && rules.length > 0) {
        clearInterval(renewal);
        renewal = setInterval(renew, (options.leaseSeconds * 1000) / 3);
      }
      return rules.length === room;
    },
    async drain() {
      await Promise.all(inFlight.values());
      clearInterval(renewal);
      try {
        await ctx.db.query(`UPDATE alert_rules SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`, [
          token,
        ]);
      } catch (err) {
        // Released only so that another instance need not wait; left alone they lapse, as a killed instance's do,
        // and nothing else was waiting on them (an evaluation commits only while its claim holds).
        if (!isDatabaseUnavailable(err)) throw err;
        ctx.log.warn(
          { leaseSeconds: options.leaseSeconds },
          'alert evaluator stopped without releasing its claims (the database is unavailable): the rules it held are evaluated again once they lapse',
        );
      }
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
  const outcome = await evaluateRuleQuery(ctx, rule, signal);
  // Stopped meanwhile: the rule is left to the next instance rather than recorded as the stop's error.
  if (signal.aborted) return;
  const before = { state: rule.state, pendingSince: rule.pending_since, pendingMinutes: rule.pending_minutes };
  const condition = { op: rule.condition_op, threshold: rule.threshold, thresholdHigh: rule.threshold_high };
  const t = nextState(before, condition, outcome, new Date());
  const reminder = reminderOf(rule.state, t);
  const error = outcome.kind === 'error' ? outcome.message : null;
  await commitEvaluation(ctx.db, rule, token, t, error, reminder !== null, (due) => {
    const kind = due ? reminder : t.notify;
    return kind ? { kind, payload: alertPayload(rule, t, publicUrl, due) } : null;
  });
}
