import type { DashboardRow, ListRow, VersionRow } from './store.ts';

export function summary(
  r: Pick<DashboardRow, 'id' | 'slug' | 'title' | 'description' | 'tags' | 'version' | 'created_at' | 'updated_at'>,
) {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    ...(r.description !== null ? { description: r.description } : {}),
    tags: r.tags,
    version: r.version,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export const listItem = (r: ListRow) => ({ ...summary(r), favourite: r.favourite });

export const full = (r: DashboardRow) => ({ ...summary(r), definition: r.definition });

export const created = (r: DashboardRow) => ({
  id: r.id,
  slug: r.slug,
  title: r.title,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export const versionSummary = (v: Omit<VersionRow, 'definition'>) => ({
  version: v.version,
  slug: v.slug,
  title: v.title,
  createdBy: v.created_by,
  createdAt: v.created_at.toISOString(),
  restoredFrom: v.restored_from,
});

export const version = (v: VersionRow) => ({
  version: v.version,
  slug: v.slug,
  title: v.title,
  ...(v.description !== null ? { description: v.description } : {}),
  definition: v.definition,
  createdBy: v.created_by,
  createdAt: v.created_at.toISOString(),
  restoredFrom: v.restored_from,
});
