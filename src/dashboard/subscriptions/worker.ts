import { randomUUID } from 'node:crypto';
import type { Worker } from '../scheduling/loop.ts';
import { nextRun } from './schedule.ts';
import { sendSubscription, type SendOutcome, type SubscriptionDeps } from './send.ts';
import { SUBSCRIPTION_COLUMNS, type SubscriptionRow } from './store.ts';

/**
 * Sends due subscriptions: each is claimed under a lease (renewed while it renders), and a run row per scheduled
 * time, unique, is taken before sending: a slot already sent is never sent again, by this instance or another; one
 * whose instance died mid-send is sent by the next (a mail may then go twice, never not at all).
 */
export function subscriptionSender(
  deps: SubscriptionDeps,
  options: { instanceId: string; leaseSeconds: number },
): Worker {
  return {
    name: 'subscription sender',
    async tick(signal) {
      const token = `${options.instanceId}/${randomUUID()}`;
      const claimed = await deps.db.query<SubscriptionRow>(
        `UPDATE dashboard_subscriptions s SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
          WHERE s.id IN (SELECT id FROM dashboard_subscriptions
                          WHERE enabled AND next_run_at <= now() AND (lease_until IS NULL OR lease_until < now())
                          ORDER BY next_run_at LIMIT 5 FOR UPDATE SKIP LOCKED)
          RETURNING ${SUBSCRIPTION_COLUMNS}`,
        [token, options.leaseSeconds],
      );
      if (claimed.rows.length === 0) return false;
      const renew = setInterval(
        () =>
          void deps.db
            .query(
              `UPDATE dashboard_subscriptions SET lease_until = now() + make_interval(secs => $2) WHERE lease_owner = $1`,
              [token, options.leaseSeconds],
            )
            .catch(() => {}),
        (options.leaseSeconds * 1000) / 3,
      );
      try {
        for (const sub of claimed.rows) {
          if (signal.aborted) break;
          await runOnce(deps, sub, token);
        }
      } finally {
        clearInterval(renew);
        await deps.db.query(
          `UPDATE dashboard_subscriptions SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`,
          [token],
        );
      }
      return claimed.rows.length === 5;
    },
  };
}

async function runOnce(deps: SubscriptionDeps, sub: SubscriptionRow, token: string): Promise<void> {
  const slot = sub.next_run_at;
  const taken = await deps.db.query(
    `INSERT INTO subscription_runs (subscription_id, scheduled_for, status) VALUES ($1, $2, 'sending')
     ON CONFLICT (subscription_id, scheduled_for) DO UPDATE SET status = 'sending', started_at = now()
       WHERE subscription_runs.status <> 'sent'
     RETURNING id`,
    [sub.id, slot],
  );
  let outcome: SendOutcome | undefined;
  if (taken.rows.length > 0) outcome = await sendSubscription(deps, sub);
  const next = nextRun(sub, new Date(Math.max(Date.now(), slot.getTime())));
  await deps.db.transaction(async (tx) => {
    if (outcome)
      await tx.query(
        `UPDATE subscription_runs SET status = $3, detail = $4, finished_at = now()
          WHERE subscription_id = $1 AND scheduled_for = $2`,
        [sub.id, slot, outcome.ok ? 'sent' : 'failed', outcome.detail],
      );
    await tx.query(
      `UPDATE dashboard_subscriptions SET next_run_at = $3,
              last_sent_at = CASE WHEN $4::boolean THEN now() ELSE last_sent_at END,
              last_error = CASE WHEN $4::boolean THEN NULL ELSE COALESCE($5, last_error) END
        WHERE id = $1 AND lease_owner = $2`,
      [sub.id, token, next, outcome?.ok ?? false, outcome && !outcome.ok ? outcome.detail : null],
    );
  });
}
