import type { Queryable } from '../../kit/db.ts';
import { PRINCIPAL_SELECT, principalFromRow, type PrincipalView } from '../principals/view.ts';

/** Where a page of people ends: the last one's name as sorted (lower case) and id. */
export type PersonPosition = [name: string, id: string];

/**
 * People (human principals) in name order, those whose name (display, given or family) or email contains `q` in any
 * case when it is given (its % _ and \ are text, not patterns); `limit` of them after `after`.
 */
export async function searchPeople(
  db: Queryable,
  f: { q?: string | undefined; active?: boolean | undefined; limit: number; after?: PersonPosition | undefined },
): Promise<(PrincipalView & { position: PersonPosition })[]> {
  const pattern = f.q ? `%${f.q.replace(/[\\%_]/g, '\\$&')}%` : null;
  const r = await db.query<Record<string, unknown> & { sort_name: string }>(
    `${PRINCIPAL_SELECT.replace('SELECT ', 'SELECT lower(p.display_name) AS sort_name, ')}
      WHERE p.type = 'human' AND ($1::boolean IS NULL OR p.active = $1)
        AND ($2::text IS NULL OR p.display_name ILIKE $2 OR h.email ILIKE $2 OR h.given_name ILIKE $2 OR h.family_name ILIKE $2)
        AND ($3::text IS NULL OR (lower(p.display_name), p.id) > ($3::text, $4::uuid))
      ORDER BY lower(p.display_name), p.id LIMIT $5`,
    [f.active ?? null, pattern, f.after?.[0] ?? null, f.after?.[1] ?? null, f.limit],
  );
  return r.rows.map((row) => {
    const p = principalFromRow(row);
    return { ...p, position: [row.sort_name, p.id] };
  });
}
