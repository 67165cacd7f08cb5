import { useQuery } from '@tanstack/react-query';
import { schemaQuery } from '../data/queries.ts';

const NONE: Record<string, string[]> = {};

/**
 * The chosen source's tables and their columns, for the editor's completion. The schema is cached per source, so an
 * earlier source's answer arriving late (a slow database) lands under its own key and never replaces this one; a
 * failure that may pass is tried again (schemaQuery). Completion simply offers no tables while there are none.
 */
export function useSourceTables(sourceId: number | undefined): Record<string, string[]> {
  const schema = useQuery({
    ...schemaQuery(sourceId ?? 0),
    enabled: sourceId !== undefined,
    select: (tables) => Object.fromEntries(tables.map((t) => [t.name, (t.columns ?? []).map((c) => c.name)])),
  });
  return schema.data ?? NONE;
}
