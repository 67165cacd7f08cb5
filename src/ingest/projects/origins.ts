import type { Queryable } from '../../kit/db.ts';
import { ProjectInputError } from './store.ts';

/** More would be a list of customers' sites, not of a project's own: a wildcard belongs in INGEST_ALLOWED_ORIGINS. */
export const MAX_PROJECT_ORIGINS = 100;

/**
 * An origin as a browser sends it in `Origin`: `http` or `https`, a host, a port when not the default, nothing else.
 * A trailing `/` is forgiven; a path, query, fragment or credentials are refused, naming the entry (`origins[2]: …`).
 */
export function normalizeOrigin(raw: string, index: number): string {
  const where = `origins[${index}]`;
  const text = raw.trim();
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ProjectInputError(`${where}: must be an origin such as https://shop.example.com`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ProjectInputError(`${where}: must start with https:// or http://`);
  if (u.username || u.password) throw new ProjectInputError(`${where}: must not carry a user name or password`);
  if (u.pathname !== '/' || u.search || u.hash || text.includes('?') || text.includes('#'))
    throw new ProjectInputError(
      `${where}: must be scheme, host and port only (${u.origin}), without a path, query or fragment`,
    );
  return u.origin;
}

/** The origins given, each checked and written as browsers send it, without repeats, in the order given. */
export function normalizeOrigins(raw: readonly string[]): string[] {
  if (raw.length > MAX_PROJECT_ORIGINS)
    throw new ProjectInputError(
      `origins: at most ${MAX_PROJECT_ORIGINS}; allow every origin with INGEST_ALLOWED_ORIGINS=*`,
    );
  return [...new Set(raw.map((o, i) => normalizeOrigin(o, i)))];
}

/** A project's origins; undefined when there is no such project. */
export async function getProjectOrigins(db: Queryable, projectId: string): Promise<string[] | undefined> {
  const { rows } = await db.query<{ allowed_origins: string[] }>('SELECT allowed_origins FROM projects WHERE id = $1', [
    projectId,
  ]);
  return rows[0]?.allowed_origins;
}

/** Replaces a project's origins (already normalized); undefined when there is no such project. */
export async function setProjectOrigins(
  db: Queryable,
  projectId: string,
  origins: string[],
): Promise<string[] | undefined> {
  const { rows } = await db.query<{ allowed_origins: string[] }>(
    'UPDATE projects SET allowed_origins = $2 WHERE id = $1 RETURNING allowed_origins',
    [projectId, origins],
  );
  return rows[0]?.allowed_origins;
}

/** Every project that allows some origin, with its origins (lower-cased, as they are compared). */
export async function loadProjectOrigins(db: Queryable): Promise<Map<string, Set<string>>> {
  const { rows } = await db.query<{ id: string; allowed_origins: string[] }>(
    "SELECT id, allowed_origins FROM projects WHERE allowed_origins <> '{}'",
  );
  return new Map(rows.map((r) => [r.id, new Set(r.allowed_origins.map((o) => o.toLowerCase()))]));
}
