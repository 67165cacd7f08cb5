import type { Database, Queryable } from '../../kit/db.ts';
import type { ScimConnection } from '../access/scim.ts';
import { recordChange, type Actor } from '../events/record.ts';
import { activationApplied, hashNewPassword, type ActivationCaches } from '../principals/store.ts';
import { scimError } from './errors.ts';
import { applyPatch } from './patch.ts';
import { adopt, adoptById, adoptable, holderOf, refusal } from './adopt.ts';
import { userNameEquals } from './filter.ts';
import type { ListQuery } from './list.ts';
import { deleteUser, displayOf, findUser, insertUser, listUsers, valuesOf, writeUser } from './users-store.ts';
import { readUser, type UserInput, type UserRecord, type UserValues } from './user.ts';

export interface ScimUserDeps {
  db: Database;
  caches: ActivationCaches;
}

const actorOf = (c: ScimConnection): Actor => ({ kind: 'scim', id: c.id });

/** What the change log keeps of a person's SCIM values: the platform's names, the password never. */
function logged(u: UserValues, password: string | undefined): Record<string, unknown> {
  return {
    email: u.userName,
    display_name: u.displayName,
    given_name: u.givenName,
    family_name: u.familyName,
    external_id: u.externalId,
    // In one order of keys, as jsonb keeps them in its own: the same addresses compare equal.
    emails: u.emails.map((e) => ({ value: e.value, type: e.type, primary: e.primary, display: e.display })),
    active: u.active,
    ...(password !== undefined ? { password: '[redacted]' } : {}),
  };
}

/**
 * Records what changed between `before` and `after` under the management API's names for the same changes, so the
 * change log's filters and the webhooks (events/catalog.ts) treat them alike: `principal.update` for the profile (with
 * the values before and after), `principal.deactivate` or `principal.activate` for `active`.
 */
async function recordDifferences(
  tx: Queryable,
  actor: Actor,
  id: string,
  before: UserValues,
  after: UserValues,
  password: string | undefined,
): Promise<void> {
  const b = logged(before, undefined);
  const a = logged(after, password);
  const changed = Object.keys(a).filter((k) => k !== 'active' && JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  const target = { type: 'principal', id };
  if (changed.length)
    await recordChange(tx, {
      actor,
      action: 'principal.update',
      target,
      before: Object.fromEntries(changed.map((k) => [k, b[k] ?? null])),
      after: Object.fromEntries(changed.map((k) => [k, a[k]])),
    });
  if (before.active !== after.active)
    await recordChange(tx, {
      actor,
      action: after.active ? 'principal.activate' : 'principal.deactivate',
      target,
      before: { active: before.active },
      after: { active: after.active },
    });
}

function checkPrimary(u: UserValues): void {
  if (u.emails.filter((e) => e.primary).length > 1)
    throw scimError(400, 'invalidValue', 'at most one of emails may be primary');
}

const notFound = (id: string) => scimError(404, undefined, `no User ${id} here`);

async function passwordHashOf(password: string | undefined): Promise<string | undefined> {
  if (password === undefined) return undefined;
  try {
    return await hashNewPassword(password);
  } catch (err) {
    throw scimError(400, 'invalidValue', (err as Error).message);
  }
}

/** Reads the person again after the change committed, and drops the caches the platform's rule names. */
async function committed(deps: ScimUserDeps, connection: ScimConnection, id: string): Promise<UserRecord> {
  activationApplied(deps.caches, { id, application: null });
  const u = await findUser(deps.db, connection.id, id);
  if (!u) throw new Error(`SCIM user ${id} vanished after its change`);
  return u;
}

/**
 * RFC 7644 3.3: a new person with the directory's values, recorded as `principal.create`. A userName some person
 * already signs in with is 409 `uniqueness`, except a person this connection provisioned and deleted: they come back
 * (reactivated, replaced by the values given), as a directory re-assigning someone expects; and, when the connection
 * adopts existing people (adopt.ts), a person no connection provisioned: linked, then given the values as a PUT would.
 */
export async function createUser(deps: ScimUserDeps, connection: ScimConnection, body: unknown): Promise<UserRecord> {
  const input = readUser(body);
  const values = kept(valuesOfInput(input, true));
  const hash = await passwordHashOf(input.password);
  const actor = actorOf(connection);
  const id = await deps.db.transaction(async (tx) => {
    const holder = await holderOf(tx, connection.id, values.userName);
    if (holder?.ours && !holder.deleted)
      throw scimError(409, 'uniqueness', 'userName is taken: this connection provisioned this person already');
    if (holder && !holder.ours) {
      const refused = refusal(connection, holder);
      if (refused) throw scimError(409, 'uniqueness', refused);
      await adopt(tx, connection, holder.id, values.externalId, values.emails);
    }
    if (holder) {
      const before = await valuesOf(tx, holder.id);
      await writeUser(tx, holder.id, before, values, hash);
      await recordDifferences(tx, actor, holder.id, before, values, input.password);
      return holder.id;
    }
    const made = await insertUser(tx, connection.id, values, hash);
    await recordChange(tx, {
      actor,
      action: 'principal.create',
      target: { type: 'principal', id: made },
      before: null,
      after: { type: 'human', ...logged(values, input.password) },
    });
    return made;
  });
  return committed(deps, connection, id);
}

function valuesOfInput(input: UserInput, activeByDefault: boolean): UserValues {
  const { password: _password, active, ...rest } = input;
  return { ...rest, active: active ?? activeByDefault };
}

/** The values as they will be kept: the display name one is left without is made as for any new person. */
function kept(u: UserValues): UserValues {
  checkPrimary(u);
  return { ...u, displayName: displayOf(u) };
}

/** Runs a change of one of the connection's people in a transaction holding their row; 404 for one it cannot see. */
async function changeUser(
  deps: ScimUserDeps,
  connection: ScimConnection,
  id: string,
  change: (before: UserRecord) => Promise<{ after: UserValues; password: string | undefined }>,
): Promise<UserRecord> {
  await deps.db.transaction(async (tx) => {
    // A person the connection's filter matched but it has not linked yet is adopted by this change (adopt.ts).
    const before =
      (await findUser(tx, connection.id, id, true)) ??
      ((await adoptById(tx, connection, id)) ? await findUser(tx, connection.id, id, true) : undefined);
    if (!before) throw notFound(id);
    const changed = await change(before);
    const after = kept(changed.after);
    const password = changed.password;
    // Directories send the same values again (Entra ID re-sends on every cycle): nothing to write, nothing recorded, and
    // lastModified stays the time of the last real change.
    if (
      password === undefined &&
      JSON.stringify(logged(before, undefined)) === JSON.stringify(logged(after, undefined))
    )
      return;
    const hash = await passwordHashOf(password);
    await writeUser(tx, id, before, after, hash);
    await recordDifferences(tx, actorOf(connection), id, before, after, password);
  });
  return committed(deps, connection, id);
}

/** RFC 7644 3.5.1: every attribute replaced by the body's; `active` left out keeps the person's. */
export function replaceUser(deps: ScimUserDeps, connection: ScimConnection, id: string, body: unknown) {
  const input = readUser(body);
  return changeUser(deps, connection, id, async (before) => ({
    after: valuesOfInput(input, before.active),
    password: input.password,
  }));
}

/** RFC 7644 3.5.2: the PatchOp's operations, all or none. */
export function patchUser(deps: ScimUserDeps, connection: ScimConnection, id: string, body: unknown) {
  return changeUser(deps, connection, id, async (before) => {
    const { user, password } = applyPatch(before, body);
    return { after: user, password };
  });
}

/**
 * RFC 7644 3.6: the platform never deletes a person; a DELETE deactivates them by the platform's one rule (sessions end,
 * tokens stop counting, sign-in refused) and hides them from the connection, whose later requests for them are 404.
 * Recorded as `principal.deactivate`.
 */
export async function removeUser(deps: ScimUserDeps, connection: ScimConnection, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const before = await findUser(tx, connection.id, id, true);
    if (!before) throw notFound(id);
    await deleteUser(tx, id);
    await recordChange(tx, {
      actor: actorOf(connection),
      action: 'principal.deactivate',
      target: { type: 'principal', id },
      before: { active: before.active },
      after: { active: false, scim_deleted: true },
    });
  });
  activationApplied(deps.caches, { id, application: null });
}

/** One of the connection's people, or one it could adopt (adopt.ts: what its userName filter answers). */
export async function getUser(deps: ScimUserDeps, connection: ScimConnection, id: string): Promise<UserRecord> {
  const u = (await findUser(deps.db, connection.id, id)) ?? (await adoptable(deps.db, connection, { id }));
  if (!u) throw notFound(id);
  return u;
}

/**
 * RFC 7644 3.4.2: a page of the connection's people. With adoption on, a filter that is exactly `userName eq "…"` (Okta's
 * and Entra ID's match before a create) and finds none of them answers the person the connection could adopt; no other
 * filter and no unfiltered list shows people it has not linked, so a token cannot list the platform's people.
 */
export async function searchUsers(
  deps: ScimUserDeps,
  connection: ScimConnection,
  q: ListQuery,
  filterText: string | undefined,
): Promise<{ total: number; users: UserRecord[] }> {
  const page = await listUsers(deps.db, connection.id, q.filter, q.startIndex, q.count);
  const email = page.total === 0 && connection.adoptExisting && filterText ? userNameEquals(filterText) : undefined;
  const found = email ? await adoptable(deps.db, connection, { email }) : undefined;
  if (!found) return page;
  return { total: 1, users: q.startIndex === 1 && q.count > 0 ? [found] : [] };
}
