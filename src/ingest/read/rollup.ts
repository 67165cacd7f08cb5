import type { Queryable } from '../../kit/db.ts';

/**
 * Folds the appended rows of event_counts (one per project, hour and type of each insert statement, migration 010)
 * into one per project, hour and type. Run by the partition maintenance; safe beside inserts and another run: rows
 * appended meanwhile are not in this run's snapshot and stay, and a row another run deleted first is skipped here.
 * An erasure appends rows of minus the events it deleted (erasure/erase.ts): a type and hour they bring to 0 goes.
 */
export async function foldCounts(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(
    `WITH gone AS (
       DELETE FROM event_counts c
       WHERE (c.project_id, c.hour) IN (
         SELECT project_id, hour FROM event_counts GROUP BY 1, 2 HAVING count(*) > count(DISTINCT event_type))
       RETURNING c.*)
     INSERT INTO event_counts (project_id, hour, event_type, n)
     SELECT project_id, hour, event_type, sum(n) FROM gone GROUP BY 1, 2, 3 HAVING sum(n) <> 0`,
  );
  return rowCount;
}

/** Forgets the counts of a dropped partition's range (`from` null: everything before `to`). */
export async function forgetCounts(db: Queryable, from: Date | null, to: Date): Promise<void> {
  if (from === null) await db.query('DELETE FROM event_counts WHERE hour < $1', [to]);
  else await db.query('DELETE FROM event_counts WHERE hour >= $1 AND hour < $2', [from, to]);
}
