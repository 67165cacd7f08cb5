import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { ADMIN_SCOPE } from '../config.ts';
import { findPrincipal, type PrincipalView } from '../principals/view.ts';
import { recordChange, type Actor } from '../events/record.ts';
import { heldScopes, type ConsoleRight, type RightName } from '../principals/console-rights.ts';

export interface RightHeld extends ConsoleRight {
  held: boolean;
}

/** Each right of the catalog, held or not by this principal. */
export function rightsOf(principal: PrincipalView, catalog: readonly ConsoleRight[]): RightHeld[] {
  const held = new Set(heldScopes(principal));
  return catalog.map((r) => ({ ...r, held: held.has(r.scope) }));
}

const names = (rights: RightHeld[]) => rights.filter((r) => r.held).map((r) => r.name);

/** The principal `id` found, if it is a person: console rights are only a person's (404 for none, else 409). */
export function personWithRights(principal: PrincipalView | undefined, id: string): PrincipalView {
  if (!principal) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
  if (principal.type !== 'human')
    throw new HttpError(409, 'CONFLICT', `console rights are a person's: principal ${id} is of type ${principal.type}`);
  return principal;
}

async function lockedHuman(tx: Queryable, id: string): Promise<PrincipalView> {
  // One change of rights at a time across instances, so two admins taking each other's right cannot both pass the
  // last-admin check below.
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('identity.console_rights'))");
  return personWithRights(await findPrincipal(tx, id), id);
}

/** Whether another active person keeps the identity right (a platform admin holding `admin`). */
async function anotherAdmin(tx: Queryable, id: string): Promise<boolean> {
  const r = await tx.query(
    `SELECT 1 FROM principals p JOIN humans h ON h.principal_id = p.id
      WHERE p.id <> $1 AND p.active AND h.is_platform_admin AND p.allowed_scopes ? $2 LIMIT 1`,
    [id, ADMIN_SCOPE],
  );
  return r.rows.length > 0;
}

/**
 * Makes `wanted` the person's console rights, exactly: the scopes of the rights named are added to their allowed scopes
 * and those of the others removed (their other scopes stay), `admin` with the platform-admin flag it needs; recorded in
 * admin_changes in the same transaction. Taking the identity right from the last active person holding it is refused
 * (409): nobody could give it back but the service's admin token.
 */
export async function setConsoleRights(db: Database, input: RightsChange): Promise<RightHeld[]> {
  return db.transaction((tx) => applyConsoleRights(tx, input));
}

export interface RightsChange {
  principalId: string;
  wanted: readonly RightName[];
  catalog: readonly ConsoleRight[];
  actor: Actor;
}

/** setConsoleRights inside the caller's transaction (the first run's owner gets their rights with their account). */
export async function applyConsoleRights(tx: Queryable, input: RightsChange): Promise<RightHeld[]> {
  const principal = await lockedHuman(tx, input.principalId);
  const before = rightsOf(principal, input.catalog);
  const wanted = new Set(input.wanted);
  const granted = input.catalog.filter((r) => wanted.has(r.name)).map((r) => r.scope);
  const taken = input.catalog.filter((r) => !wanted.has(r.name)).map((r) => r.scope);
  const admin = granted.includes(ADMIN_SCOPE);
  const identityRight = before.find((r) => r.scope === ADMIN_SCOPE);
  if (identityRight?.held && !admin && principal.active && !(await anotherAdmin(tx, principal.id)))
    throw new HttpError(
      409,
      'CONFLICT',
      `${principal.identifier} is the last person with the ${identityRight.name} right: give it to someone else first`,
    );
  await tx.query(
    `UPDATE principals
        SET allowed_scopes = coalesce((SELECT jsonb_agg(DISTINCT s ORDER BY s)
                                         FROM jsonb_array_elements_text(allowed_scopes || $2::jsonb) s
                                        WHERE s <> ALL($3::text[]) OR s = ANY($4::text[])), '[]'::jsonb),
            updated_at = now()
      WHERE id = $1`,
    [principal.id, JSON.stringify(granted), taken, granted],
  );
  // `admin` counts only with the platform-admin flag (rights.ts): the identity right sets both.
  if (identityRight)
    await tx.query('UPDATE humans SET is_platform_admin = $2, updated_at = now() WHERE principal_id = $1', [
      principal.id,
      admin,
    ]);
  const after = rightsOf((await findPrincipal(tx, principal.id))!, input.catalog);
  await recordChange(tx, {
    actor: input.actor,
    action: 'console_rights.set',
    target: { type: 'principal', id: principal.id },
    before: { rights: names(before) },
    after: { rights: names(after) },
  });
  return after;
}

/**
 * Gives a person one more console right and keeps those they hold (`platform identity admin create` of an existing
 * person: the identity right), by applyConsoleRights with their rights read under its lock; recorded as it records.
 */
export async function grantConsoleRight(
  tx: Queryable,
  input: Omit<RightsChange, 'wanted'> & { right: RightName },
): Promise<RightHeld[]> {
  const { right, ...change } = input;
  const held = names(rightsOf(await lockedHuman(tx, input.principalId), input.catalog));
  return applyConsoleRights(tx, { ...change, wanted: [...held, right] });
}
