import type { Static } from 'typebox';
import type { Subscription } from './schemas.ts';
import type { SubscriptionRow } from './store.ts';

export const subscription = (r: SubscriptionRow): Static<typeof Subscription> => ({
  id: r.id,
  dashboardId: r.dashboard_id,
  ownerId: r.owner_id,
  schedule: { frequency: r.frequency, minute: r.minute, hour: r.hour, weekday: r.weekday, timezone: r.timezone },
  recipients: { userIds: r.user_ids, addresses: r.addresses },
  parameters: r.parameters,
  enabled: r.enabled,
  nextRunAt: r.next_run_at.toISOString(),
  lastSentAt: r.last_sent_at ? r.last_sent_at.toISOString() : null,
  lastError: r.last_error,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});
