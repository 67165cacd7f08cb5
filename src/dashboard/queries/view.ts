import type { SavedQueryRow } from './store.ts';

/** A saved query as answered. */
export const savedQuery = (r: SavedQueryRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  dataSourceId: r.data_source_id,
  query: r.query,
  createdBy: r.created_by,
  createdByName: r.created_by_name,
  updatedBy: r.updated_by,
  updatedByName: r.updated_by_name,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});
