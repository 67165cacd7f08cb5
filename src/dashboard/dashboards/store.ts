import type { Queryable } from '../../kit/db.ts';
import { visibleSql, type Who } from './access.ts';
import type { DefinitionValue } from './definition.ts';
import { tagKeys } from './tags.ts';

export interface DashboardRow {
  id: number;
  tenant_id: number;
  slug: string;
  title: string;
  description: string | null;
  definition: DefinitionValue;
  tags: string[];
  version: number;
  created_at: Date;
  updated_at: Date;
  created_by: number | null;
  /** Who may see and change it (access.ts): only the tenant's admins, its creator and these people when restricted. */
  restricted: boolean;
  access_viewers: number[];
  access_editors: number[];
}

export type ListRow = Omit<
  DashboardRow,
  'definition' | 'tenant_id' | 'created_by' | 'restricted' | 'access_viewers' | 'access_editors'
> & { favourite: boolean };

export type SortColumn = 'created_at' | 'updated_at' | 'title';

export interface ListOptions {
  /** Whose list: their tenant's dashboards they may see (access.ts), marked with their favourites. */
  who: Who;
  page: number;
  perPage: number;
  search?: string | undefined;
  /** Only dashboards with this tag (any case). */
  tag?: string | undefined;
  /** Only this person's favourites. */
  favouritesOf?: number | undefined;
  sort: SortColumn;
  order: 'asc' | 'desc';
}

const SUMMARY = 'id, slug, title, description, tags, version, created_at, updated_at';
// The id lists as JSON: PostgreSQL's bigint[] would reach JavaScript as strings (kit/db.ts parses only bigint).
const FULL = `${SUMMARY}, tenant_id, definition, created_by, restricted,
  to_jsonb(access_viewers) AS access_viewers, to_jsonb(access_editors) AS access_editors`;

/** `%`, `_` and `\` in a search are matched literally. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const ORDER: Record<SortColumn, string> = { created_at: 'created_at', updated_at: 'updated_at', title: 'lower(title)' };

export async function listDashboards(db: Queryable, o: ListOptions): Promise<{ rows: ListRow[]; total: number }> {
  const params: unknown[] = [o.who.tenantId];
  const filters = ['tenant_id = $1'];
  const visible = visibleSql(o.who, () => params.push(o.who.id));
  if (o.search)
    filters.push(`(title ILIKE $${params.push(likePattern(o.search))} OR description ILIKE $${params.length})`);
  if (o.tag) filters.push(`tag_keys @> ARRAY[$${params.push(o.tag.toLowerCase())}::text]`);
  if (o.favouritesOf !== undefined)
    filters.push(
      `id IN (SELECT dashboard_id FROM dashboard_favourites WHERE user_id = $${params.push(o.favouritesOf)})`,
    );
  const filtered = filters.length > 1;
  const where = [...filters, ...(visible ? [visible] : [])].join(' AND ');
  const direction = o.order === 'asc' ? 'ASC' : 'DESC';
  // Page and total as two queries on two connections at once: a window count over the page query would
  // make PostgreSQL read and sort every matching row before it could stop at the page. Without a
  // filter the total is the tenant's count kept by triggers (migration 005), less the restricted dashboards the
  // caller may not see (few, by a partial index: migration 015).
  const [page, count] = await Promise.all([
    // The id breaks ties so pages never overlap or skip rows with equal sort values.
    db.query<ListRow>(
      `SELECT ${SUMMARY}, EXISTS (SELECT 1 FROM dashboard_favourites f WHERE f.user_id = $${params.length + 1} AND f.dashboard_id = dashboards.id) AS favourite
         FROM dashboards WHERE ${where}
        ORDER BY ${ORDER[o.sort]} ${direction}, id ${direction} LIMIT ${o.perPage} OFFSET ${(o.page - 1) * o.perPage}`,
      [...params, o.who.id],
    ),
    filtered
      ? db.query<{ n: number }>(`SELECT count(*)::int AS n FROM dashboards WHERE ${where}`, params)
      : db.query<{ n: number }>(
          `SELECT (n - ${visible ? `(SELECT count(*) FROM dashboards WHERE tenant_id = $1 AND restricted AND NOT ${visible})` : '0'})::int AS n
             FROM dashboard_counts WHERE tenant_id = $1`,
          params,
        ),
  ]);
  return { rows: page.rows, total: count.rows[0]?.n ?? 0 };
}

export async function getDashboard(
  db: Queryable,
  tenantId: number,
  id: number,
  lock = false,
): Promise<DashboardRow | undefined> {
  const { rows } = await db.query<DashboardRow>(
    `SELECT ${FULL} FROM dashboards WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [tenantId, id],
  );
  return rows[0];
}

export class SlugTaken extends Error {}

function slugConflict(err: unknown, slug: string): never {
  if ((err as { code?: string }).code === '23505')
    throw new SlugTaken(`a dashboard with slug "${slug}" already exists in this tenant`);
  throw err;
}

export async function insertDashboard(
  db: Queryable,
  input: {
    tenantId: number;
    userId: number | null;
    slug: string;
    title: string;
    description: string | null;
    definition: DefinitionValue;
    tags?: string[] | undefined;
  },
): Promise<DashboardRow> {
  const tags = input.tags ?? [];
  const { rows } = await db.query<DashboardRow>(
    `INSERT INTO dashboards (tenant_id, slug, title, description, definition, created_by, updated_by, tags, tag_keys)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8) ON CONFLICT (tenant_id, slug) DO NOTHING RETURNING ${FULL}`,
    [
      input.tenantId,
      input.slug,
      input.title,
      input.description,
      JSON.stringify(input.definition),
      input.userId,
      tags,
      tagKeys(tags),
    ],
  );
  if (!rows[0]) throw new SlugTaken(`a dashboard with slug "${input.slug}" already exists in this tenant`);
  await saveVersion(db, rows[0], input.userId, null);
  return rows[0];
}

export async function updateDashboard(
  db: Queryable,
  current: DashboardRow,
  next: {
    slug: string;
    title: string;
    description: string | null;
    definition: DefinitionValue;
    /** Kept as they are when not given. */
    tags?: string[] | undefined;
  },
  userId: number | null,
  restoredFrom: number | null = null,
): Promise<DashboardRow> {
  let rows: DashboardRow[];
  try {
    ({ rows } = await db.query<DashboardRow>(
      `UPDATE dashboards SET slug = $3, title = $4, description = $5, definition = $6, version = version + 1, updated_by = $7, updated_at = now(),
          tags = COALESCE($8, tags), tag_keys = COALESCE($9, tag_keys)
        WHERE tenant_id = $1 AND id = $2 RETURNING ${FULL}`,
      [
        current.tenant_id,
        current.id,
        next.slug,
        next.title,
        next.description,
        JSON.stringify(next.definition),
        userId,
        next.tags ?? null,
        next.tags ? tagKeys(next.tags) : null,
      ],
    ));
  } catch (err) {
    slugConflict(err, next.slug);
  }
  await saveVersion(db, rows[0]!, userId, restoredFrom);
  return rows[0]!;
}

async function saveVersion(
  db: Queryable,
  d: DashboardRow,
  userId: number | null,
  restoredFrom: number | null,
): Promise<void> {
  await db.query(
    `INSERT INTO dashboard_versions (dashboard_id, version, slug, title, description, definition, created_by, created_at, restored_from)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [d.id, d.version, d.slug, d.title, d.description, JSON.stringify(d.definition), userId, d.updated_at, restoredFrom],
  );
}

export async function deleteDashboard(db: Queryable, tenantId: number, id: number): Promise<DashboardRow | undefined> {
  const { rows } = await db.query<DashboardRow>(
    `DELETE FROM dashboards WHERE tenant_id = $1 AND id = $2 RETURNING ${FULL}`,
    [tenantId, id],
  );
  return rows[0];
}

export interface VersionRow {
  version: number;
  slug: string;
  title: string;
  description: string | null;
  definition: DefinitionValue;
  created_by: number | null;
  created_at: Date;
  restored_from: number | null;
}

export async function listVersions(
  db: Queryable,
  dashboardId: number,
  before: number | undefined,
  limit: number,
): Promise<Omit<VersionRow, 'definition'>[]> {
  const { rows } = await db.query<Omit<VersionRow, 'definition'>>(
    `SELECT version, slug, title, description, created_by, created_at, restored_from FROM dashboard_versions
      WHERE dashboard_id = $1 AND ($2::int IS NULL OR version < $2) ORDER BY version DESC LIMIT $3`,
    [dashboardId, before ?? null, limit],
  );
  return rows;
}

export async function getVersion(db: Queryable, dashboardId: number, version: number): Promise<VersionRow | undefined> {
  const { rows } = await db.query<VersionRow>(
    `SELECT version, slug, title, description, definition, created_by, created_at, restored_from FROM dashboard_versions WHERE dashboard_id = $1 AND version = $2`,
    [dashboardId, version],
  );
  return rows[0];
}

/** Sets who may see and change the dashboard (access.ts); not a version of it. */
export async function setAccess(
  db: Queryable,
  d: Pick<DashboardRow, 'tenant_id' | 'id'>,
  access: { restricted: boolean; viewers: number[]; editors: number[] },
): Promise<DashboardRow> {
  const { rows } = await db.query<DashboardRow>(
    `UPDATE dashboards SET restricted = $3, access_viewers = $4, access_editors = $5
      WHERE tenant_id = $1 AND id = $2 RETURNING ${FULL}`,
    [d.tenant_id, d.id, access.restricted, access.viewers, access.editors],
  );
  return rows[0]!;
}

/** Which of `slugs` the tenant's dashboards already have, in order. */
export async function takenSlugs(db: Queryable, tenantId: number, slugs: string[]): Promise<string[]> {
  const { rows } = await db.query<{ slug: string }>(
    'SELECT slug FROM dashboards WHERE tenant_id = $1 AND slug = ANY($2::text[]) ORDER BY slug',
    [tenantId, slugs],
  );
  return rows.map((r) => r.slug);
}

/** Marks or unmarks a dashboard as one of this person's favourites; both are idempotent. */
export async function setFavourite(db: Queryable, userId: number, dashboardId: number, on: boolean): Promise<void> {
  await db.query(
    on
      ? 'INSERT INTO dashboard_favourites (user_id, dashboard_id) VALUES ($1, $2) ON CONFLICT DO NOTHING'
      : 'DELETE FROM dashboard_favourites WHERE user_id = $1 AND dashboard_id = $2',
    [userId, dashboardId],
  );
}
