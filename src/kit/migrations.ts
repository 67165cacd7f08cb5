import { readdir, readFile } from 'node:fs/promises';
import type { Database } from './db.ts';

export interface MigrationReport {
  applied: string[];
}

export const MIGRATION_FILE = /^\d{3,}[-_].+\.sql$/;

/** Old name → new name of migrations renumbered after they may have been applied somewhere. */
const RENAMED = 'renamed.json';

/**
 * Applies the `.sql` files of `dir` in name order, each once, recording them in `<schema>.schema_migrations`.
 * Everything runs in one transaction under an advisory lock keyed by the schema, so two instances
 * starting together apply each migration exactly once and a failed migration leaves nothing half-done.
 * A `renamed.json` in `dir` (`{"<old file>": "<new file>"}`) lets a service renumber its migrations: a database
 * that recorded the old names has them rewritten first, so it does not apply the same script again.
 */
export async function migrate(db: Database, dir: URL | string): Promise<MigrationReport> {
  const entries = await readdir(dir);
  const files = entries.filter((f) => MIGRATION_FILE.test(f)).sort();
  const renamed = entries.includes(RENAMED)
    ? (JSON.parse(await readFile(new URL(RENAMED, withSlash(dir)), 'utf8')) as Record<string, string>)
    : {};
  const scripts = await Promise.all(
    files.map(async (f) => ({ name: f, sql: await readFile(new URL(f, withSlash(dir)), 'utf8') })),
  );
  return db.transaction(async (tx) => {
    // A migration may rewrite a large table: the pool's statement timeout does not apply to it.
    await tx.query('SET LOCAL statement_timeout = 0');
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`platform.migrate.${db.schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${db.schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${db.schema}.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const [from, to] of Object.entries(renamed)) {
      await tx.query(
        `UPDATE ${db.schema}.schema_migrations SET name = $2 WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM ${db.schema}.schema_migrations WHERE name = $2)`,
        [from, to],
      );
    }
    const done = new Set(
      (await tx.query<{ name: string }>(`SELECT name FROM ${db.schema}.schema_migrations`)).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const script of scripts) {
      if (done.has(script.name)) continue;
      try {
        await tx.exec(script.sql);
      } catch (err) {
        throw new Error(`migration ${db.schema}/${script.name} failed: ${(err as Error).message}`, { cause: err });
      }
      await tx.query(`INSERT INTO ${db.schema}.schema_migrations (name) VALUES ($1)`, [script.name]);
      applied.push(script.name);
    }
    return { applied };
  });
}

function withSlash(dir: URL | string): URL {
  const u = typeof dir === 'string' ? new URL(`file://${dir}`) : dir;
  return u.href.endsWith('/') ? u : new URL(`${u.href}/`);
}
