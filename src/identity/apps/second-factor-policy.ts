import type { Queryable } from '../../kit/db.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether signing in to this app (for this organization, when the request names one) needs a second factor: the one
 * rule the sign-in's second step and the check of an existing session both ask.
 */
export async function secondFactorRequired(
  db: Queryable,
  clientId: unknown,
  organizationId: unknown,
): Promise<boolean> {
  if (typeof clientId !== 'string') return false;
  const org = typeof organizationId === 'string' && UUID.test(organizationId) ? organizationId : null;
  const r = await db.query<{ required: boolean }>(
    `SELECT coalesce((SELECT require_second_factor FROM oauth_apps WHERE client_id = $1), false)
         OR coalesce((SELECT require_second_factor FROM organizations WHERE id = $2::uuid), false) AS required`,
    [clientId, org],
  );
  return r.rows[0]?.required === true;
}
