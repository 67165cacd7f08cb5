import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';

export interface AdminLogEntry {
  id: string;
  at: string;
  actor: {
    kind: 'person' | 'admin-token' | 'platform' | 'command' | 'anonymous' | 'scim';
    id: string | null;
    name: string | null;
    email: string | null;
  };
  action: string;
  /** The webhook event the entry is (events/catalog.ts), or null for a change no webhook hears of. */
  event: string | null;
  client_ip: string | null;
  target: { type: string; id: string; name: string | null };
  before: unknown;
  after: unknown;
}

export interface AdminLogFilter {
  /**
   * `admin-token`, `platform`, `command` or `scim` for those actors, a principal's or SCIM connection's id, or part of a
   * person's name or email.
   */
  actor?: string | undefined;
  /** An action, or its beginning up to a dot: `organization` finds `organization.create` and `organization.member.update`. */
  action?: string | undefined;
  /** An event type: entries that are this event. */
  event?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  /** Text anywhere in what the change recorded (the values before and after). */
  text?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** The id of the last entry of the previous page (entries go newest first). */
  before?: string | undefined;
  limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `%` and `_` typed by a person are characters, not wildcards. */
const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The change log, newest first, filtered; each entry with its actor's name and email and its target's name now (a
 * principal's, an organization's or an application's), read in one statement.
 */
export async function listAdminLog(db: Queryable, f: AdminLogFilter): Promise<AdminLogEntry[]> {
  const actor = f.actor?.trim();
  const actorKind =
    actor === 'admin-token' || actor === 'platform' || actor === 'command' || actor === 'scim' ? actor : null;
  const actorId = actor && !actorKind && UUID.test(actor) ? actor : null;
  const actorText = actor && !actorKind && !actorId ? like(actor) : null;
  const r = await db.query<AdminLogEntry>(
    `SELECT c.id::text AS id, ${isoUtc('c.at')} AS at,
            jsonb_build_object('kind', c.actor_kind, 'id', c.actor_id, 'name', coalesce(ap.display_name, sc.name), 'email', ah.email) AS actor,
            c.action, c.event_type AS event, c.client_ip,
            jsonb_build_object('type', c.target_type, 'id', c.target_id,
              'name', CASE c.target_type WHEN 'principal' THEN tp.display_name WHEN 'organization' THEN tor.name
                                         WHEN 'application' THEN ta.name END) AS target,
            c.before, c.after
       FROM admin_changes c
       LEFT JOIN principals ap ON ap.id = c.actor_id
       LEFT JOIN humans ah ON ah.principal_id = c.actor_id
       LEFT JOIN scim_connections sc ON c.actor_kind = 'scim' AND sc.id = c.actor_id
       LEFT JOIN principals tp ON c.target_type = 'principal' AND tp.id::text = c.target_id
       LEFT JOIN organizations tor ON c.target_type = 'organization' AND tor.id::text = c.target_id
       LEFT JOIN oauth_apps ta ON c.target_type = 'application' AND ta.id::text = c.target_id
      WHERE ($1::bigint IS NULL OR c.id < $1)
        AND ($2::text IS NULL OR c.actor_kind = $2)
        AND ($3::uuid IS NULL OR c.actor_id = $3)
        AND ($4::text IS NULL OR ap.display_name ILIKE $4 OR ap.identifier ILIKE $4 OR ah.email ILIKE $4)
        AND ($5::text IS NULL OR c.action = $5 OR starts_with(c.action, $5 || '.'))
        AND ($6::text IS NULL OR c.target_type = $6)
        AND ($7::text IS NULL OR c.target_id = $7)
        AND ($8::text IS NULL OR c.before::text ILIKE $8 OR c.after::text ILIKE $8)
        AND ($9::timestamptz IS NULL OR c.at >= $9)
        AND ($10::timestamptz IS NULL OR c.at < $10)
        AND ($12::text IS NULL OR c.event_type = $12)
      ORDER BY c.id DESC LIMIT $11`,
    [
      f.before ?? null,
      actorKind,
      actorId,
      actorText,
      f.action ?? null,
      f.targetType ?? null,
      f.targetId ?? null,
      f.text ? like(f.text) : null,
      f.since ?? null,
      f.until ?? null,
      f.limit,
      f.event ?? null,
    ],
  );
  return r.rows;
}
