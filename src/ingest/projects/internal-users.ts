import type { Queryable } from '../../kit/db.ts';
import { ProjectInputError } from './store.ts';

/** A team's own and test accounts, not its customers: a longer list belongs in a prefix. */
export const MAX_INTERNAL_USERS = 100;
/** As long as a read's `user` filter may be (read/routes.ts). */
export const MAX_INTERNAL_USER_LENGTH = 256;

/**
 * The entries given, checked one by one (naming the entry: `users[2]: …`), without repeats, in the order given. An
 * entry is a `user.id` as events carry it, or a prefix of some: the `*` that ends it says so. A `*` elsewhere is
 * refused rather than taken literally, so `test*user` never reads as a pattern it is not.
 */
export function normalizeInternalUsers(raw: readonly string[]): string[] {
  if (raw.length > MAX_INTERNAL_USERS)
    throw new ProjectInputError(
      `users: at most ${MAX_INTERNAL_USERS}; name a group of them by a prefix such as test-*`,
    );
  raw.forEach((entry, i) => {
    const where = `users[${i}]`;
    if (entry.length === 0 || entry.length > MAX_INTERNAL_USER_LENGTH)
      throw new ProjectInputError(`${where}: must be 1 to ${MAX_INTERNAL_USER_LENGTH} characters`);
    if (entry.trim() !== entry) throw new ProjectInputError(`${where}: must not start or end with a space`);
    const star = entry.indexOf('*');
    if (star !== -1 && star !== entry.length - 1)
      throw new ProjectInputError(`${where}: * may only end an entry, as a prefix (test-*)`);
    if (entry === '*')
      throw new ProjectInputError(`${where}: a prefix needs a character before the * (test-*); * alone is every user`);
  });
  return [...new Set(raw)];
}

/** Who a read leaves out: exact ids and prefixes, none covered by another, so no event is matched twice. */
export interface InternalUsers {
  exact: string[];
  prefixes: string[];
}

/** The stored entries as exact ids and prefixes, less those another prefix covers (`test-a*` under `test-*`). */
export function internalUsersOf(entries: readonly string[]): InternalUsers {
  const all = entries.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1));
  const prefixes = [...new Set(all)].filter((p, _, ps) => !ps.some((q) => q !== p && p.startsWith(q)));
  const covered = (id: string) => prefixes.some((p) => id.startsWith(p));
  const exact = [...new Set(entries.filter((e) => !e.endsWith('*') && !covered(e)))];
  return { exact, prefixes };
}

/** A project's entries; undefined when there is no such project. */
export async function getInternalUsers(db: Queryable, projectId: string): Promise<string[] | undefined> {
  const { rows } = await db.query<{ internal_users: string[] }>('SELECT internal_users FROM projects WHERE id = $1', [
    projectId,
  ]);
  return rows[0]?.internal_users;
}

/** Replaces a project's entries (already normalized); undefined when there is no such project. */
export async function setInternalUsers(
  db: Queryable,
  projectId: string,
  users: string[],
): Promise<string[] | undefined> {
  const { rows } = await db.query<{ internal_users: string[] }>(
    'UPDATE projects SET internal_users = $2 WHERE id = $1 RETURNING internal_users',
    [projectId, users],
  );
  return rows[0]?.internal_users;
}
