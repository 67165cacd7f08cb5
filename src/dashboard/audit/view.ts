import type { AuditRow } from './store.ts';

/** What a record kept of a target since deleted: a dashboard's title, else the name or slug. */
function recordedName(details: Record<string, unknown>): string | null {
  for (const key of ['title', 'name', 'slug']) {
    const v = details[key];
    if (typeof v === 'string' && v) return v;
  }
  return null;
}

export const auditRecord = (r: AuditRow) => ({
  id: r.id,
  userId: r.user_id,
  action: r.action,
  targetType: r.target_type,
  targetId: r.target_id,
  userName: r.user_name,
  targetName: r.current_name ?? recordedName(r.details),
  targetExists: r.current_name !== null,
  details: r.details,
  createdAt: r.created_at.toISOString(),
});
