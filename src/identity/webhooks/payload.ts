import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';

/**
 * The body a webhook receives, in the Standard Webhooks shape: `type`, `timestamp` (when it happened) and `data`, the
 * change-log entry as the management API shows it (secrets were redacted when it was recorded).
 */
export interface EventBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export async function eventBody(db: Queryable, changeId: string): Promise<EventBody | undefined> {
  const r = await db.query<{ type: string; timestamp: string; data: Record<string, unknown> }>(
    `SELECT event_type AS type, ${isoUtc('at')} AS timestamp,
            jsonb_build_object('id', id::text, 'action', action,
              'actor', jsonb_build_object('kind', actor_kind, 'id', actor_id),
              'target', jsonb_build_object('type', target_type, 'id', target_id),
              'before', before, 'after', after, 'client_ip', client_ip) AS data
       FROM admin_changes WHERE id = $1`,
    [changeId],
  );
  return r.rows[0];
}

export function testBody(webhookId: string): EventBody {
  return {
    type: 'webhook.test',
    timestamp: new Date().toISOString(),
    data: { webhook_id: webhookId, message: 'A test sent from the identity service: no change happened.' },
  };
}
