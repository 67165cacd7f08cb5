import type { Database } from '../../kit/db.ts';
import { CommandFailure, UsageError, type Command } from '../../kit/cli-runner.ts';
import { findSubscription } from './subscription-store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `platform identity subscriptions show`: an organization's subscription from a shell, straight against the database. */
export function billingCommands(withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>): Command[] {
  return [
    {
      path: ['subscriptions', 'show'],
      synopsis: 'ORGANIZATION_ID',
      summary: "an organization's subscription: plan, status, period, payment ids",
      positionals: { min: 1, max: 1 },
      run: ({ positionals, result }) => {
        const org = positionals[0]!;
        if (!UUID.test(org)) throw new UsageError('ORGANIZATION_ID must be an organization id (a UUID)');
        return withDatabase(async (db) => {
          const s = await findSubscription(db, org);
          if (!s) throw new CommandFailure(`organization ${org} has no subscription`);
          result(s, [
            `plan ${s.plan_tier}, ${s.status}${s.cancel_at_period_end ? ', cancels at period end' : ''}`,
            `period ${s.current_period_start ?? '?'} – ${s.current_period_end ?? '?'}`,
            `payment subscription ${s.payment_subscription_id ?? '(none)'}, customer ${s.payment_customer_id ?? '(none)'}`,
          ]);
        });
      },
    },
  ];
}
