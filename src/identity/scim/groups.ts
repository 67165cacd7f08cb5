import type { Database, Queryable } from '../../kit/db.ts';
import type { ScimConnection } from '../access/scim.ts';
import { recordChange, type Actor } from '../events/record.ts';
import { scimError } from './errors.ts';
import { patchGroup, readGroup, type GroupRecord, type GroupValues } from './group.ts';
import { checkMembers, deleteGroup, findGroup, insertGroup, setMembers, writeGroup } from './groups-store.ts';

const actorOf = (c: ScimConnection): Actor => ({ kind: 'scim', id: c.id });
const notFound = (id: string) => scimError(404, undefined, `no Group ${id} here`);

/**
 * Writes and records a group's change in the caller's transaction, under the management API's names for the same
 * changes: `organization.update` for its name or the directory's id (before and after), `organization.member.create`
 * and `organization.member.delete` per member (each a `membership.changed` webhook event).
 */
async function write(
  tx: Queryable,
  actor: Actor,
  id: string,
  before: GroupValues | undefined,
  after: GroupValues,
): Promise<void> {
  const target = { type: 'organization', id };
  if (before) {
    const changed = (['displayName', 'externalId'] as const).filter((k) => before[k] !== after[k]);
    if (changed.length) {
      await writeGroup(tx, id, after);
      const name = (k: string) => (k === 'displayName' ? 'name' : 'external_id');
      await recordChange(tx, {
        actor,
        action: 'organization.update',
        target,
        before: Object.fromEntries(changed.map((k) => [name(k), before[k]])),
        after: Object.fromEntries(changed.map((k) => [name(k), after[k]])),
      });
    }
  }
  const had = new Set(before?.members ?? []);
  const added = after.members.filter((m) => !had.has(m));
  const removed = [...had].filter((m) => !after.members.includes(m));
  await setMembers(tx, id, added, removed);
  for (const m of added)
    await recordChange(tx, {
      actor,
      action: 'organization.member.create',
      target,
      before: null,
      after: { principal_id: m, role: 'member' },
    });
  for (const m of removed)
    await recordChange(tx, {
      actor,
      action: 'organization.member.delete',
      target,
      before: null,
      after: { principal_id: m },
    });
}

async function reread(db: Database, connection: ScimConnection, id: string): Promise<GroupRecord> {
  const g = await findGroup(db, connection.id, id);
  if (!g) throw new Error(`SCIM group ${id} vanished after its change`);
  return g;
}

/** RFC 7644 3.3 for a Group: a new organization (`team`), its members the connection's people given. */
export async function createGroup(db: Database, connection: ScimConnection, body: unknown): Promise<GroupRecord> {
  const g = readGroup(body);
  const actor = actorOf(connection);
  const id = await db.transaction(async (tx) => {
    await checkMembers(tx, connection.id, g.members);
    const made = await insertGroup(tx, connection.id, g);
    await recordChange(tx, {
      actor,
      action: 'organization.create',
      target: { type: 'organization', id: made },
      before: null,
      after: { name: g.displayName, external_id: g.externalId },
    });
    await write(tx, actor, made, undefined, g);
    return made;
  });
  return reread(db, connection, id);
}

async function changeGroup(
  db: Database,
  connection: ScimConnection,
  id: string,
  change: (before: GroupRecord) => GroupValues,
): Promise<GroupRecord> {
  await db.transaction(async (tx) => {
    const before = await findGroup(tx, connection.id, id, true);
    if (!before) throw notFound(id);
    const after = change(before);
    await checkMembers(tx, connection.id, after.members);
    await write(tx, actorOf(connection), id, before, after);
  });
  return reread(db, connection, id);
}

/** RFC 7644 3.5.1: name, the directory's id and the members as given (the connection's people only are touched). */
export function replaceGroup(db: Database, connection: ScimConnection, id: string, body: unknown) {
  const g = readGroup(body);
  return changeGroup(db, connection, id, () => g);
}

export function patchGroupOf(db: Database, connection: ScimConnection, id: string, body: unknown) {
  return changeGroup(db, connection, id, (before) => patchGroup(before, body));
}

/** RFC 7644 3.6: the organization deactivated (its tokens stop counting) and hidden from the connection. */
export async function removeGroup(db: Database, connection: ScimConnection, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await findGroup(tx, connection.id, id, true))) throw notFound(id);
    await deleteGroup(tx, id);
    await recordChange(tx, {
      actor: actorOf(connection),
      action: 'organization.update',
      target: { type: 'organization', id },
      before: { active: true },
      after: { active: false, scim_deleted: true },
    });
  });
}

export async function getGroup(db: Database, connection: ScimConnection, id: string): Promise<GroupRecord> {
  const g = await findGroup(db, connection.id, id);
  if (!g) throw notFound(id);
  return g;
}
