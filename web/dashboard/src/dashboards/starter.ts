/**
 * A new widget's SQL: a small result that draws as it is (a category and a number, three rows) on PostgreSQL and
 * MySQL alike, so the person starts from a chart and changes it, never from an empty canvas.
 */
export const STARTER_SQL = `SELECT 'A' AS category, 3 AS value
UNION ALL SELECT 'B', 5
UNION ALL SELECT 'C', 2`;
