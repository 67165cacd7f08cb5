import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { findOrganization } from '../organizations/store.ts';
import { findPrincipal } from '../principals/view.ts';
import type { MarketCaller } from '../access/market.ts';
import { activeRole } from '../organizations/store.ts';
import { actingPrincipal, isManager, isMember } from './permissions.ts';
import { LISTING_MOVES, type ListingAction } from './listing-transitions.ts';
import { createListing, findListing, moveListing, updateListing, type Listing } from './listing-store.ts';
import { assignSeat, createLicense, findLicense, unassignSeat, updateLicense, type License } from './license-store.ts';

/**
 * What a marketplace caller may see and do, record by record (the routes are thin over these): anyone signed in sees
 * published listings, members see their organizations' records, and owners and admins of an organization manage them.
 * What a caller may not see is 404, not 403.
 */

const forbidden = (what: string) => new HttpError(403, 'FORBIDDEN', what);

/** Whose records a list shows: every one for a platform admin, else those the principal may see. */
export const visibility = (caller: MarketCaller) =>
  caller.platformAdmin ? undefined : { principalId: caller.principalId };

// Once published a listing stays public, archived too: its licenses keep pointing at it.
async function canSeeListing(db: Queryable, caller: MarketCaller, l: Listing): Promise<boolean> {
  return l.status === 'published' || l.status === 'archived' || (await isMember(db, caller, l.creator_org_id));
}

export async function listingOf(db: Queryable, caller: MarketCaller, id: string): Promise<Listing> {
  const l = await findListing(db, id);
  if (!l || !(await canSeeListing(db, caller, l))) throw new HttpError(404, 'NOT_FOUND', `no listing ${id}`);
  return l;
}

async function canSeeLicense(db: Database, caller: MarketCaller, x: License): Promise<boolean> {
  if (await isMember(db, caller, x.organization_id)) return true;
  const seller = (await findListing(db, x.listing_id))?.creator_org_id;
  return seller !== undefined && (await isMember(db, caller, seller));
}

export async function licenseOf(db: Database, caller: MarketCaller, id: string): Promise<License> {
  const x = await findLicense(db, id);
  if (!x || !(await canSeeLicense(db, caller, x))) throw new HttpError(404, 'NOT_FOUND', `no license ${id}`);
  return x;
}

/** The organization a caller acts for: one they belong to (404 otherwise), that they manage (403), still active (409). */
async function managedOrganization(db: Database, caller: MarketCaller, id: string, refusal: string) {
  const org = await findOrganization(db, id);
  if (!org || !(await isMember(db, caller, org.id))) throw new HttpError(404, 'NOT_FOUND', `no organization ${id}`);
  if (!(await isManager(db, caller, org.id))) throw forbidden(refusal);
  if (!org.active) throw new HttpError(409, 'CONFLICT', 'the organization is deactivated');
  return org;
}

/** The principal recorded as having acted, which must exist (400 naming `field` otherwise). */
async function actor(db: Database, caller: MarketCaller, named: string | undefined, field: string): Promise<string> {
  const id = actingPrincipal(caller, named, field);
  if (!(await findPrincipal(db, id))) throw new HttpError(400, 'VALIDATION_ERROR', `${field}: no principal ${id}`);
  return id;
}

export async function openListing(
  db: Database,
  caller: MarketCaller,
  b: Omit<Parameters<typeof createListing>[1], 'owner_id'> & { owner_id?: string | undefined },
): Promise<Listing> {
  await managedOrganization(
    db,
    caller,
    b.creator_org_id,
    'only owners and admins of the organization create its listings',
  );
  return createListing(db, { ...b, owner_id: await actor(db, caller, b.owner_id, 'owner_id') });
}

export async function changeListing(
  db: Database,
  caller: MarketCaller,
  id: string,
  changes: Parameters<typeof updateListing>[2],
): Promise<Listing> {
  const l = await listingOf(db, caller, id);
  if (!(await isManager(db, caller, l.creator_org_id)))
    throw forbidden('only owners and admins of the creator organization change a listing');
  const changed = await updateListing(db, l.id, changes);
  if (!changed) throw new HttpError(404, 'NOT_FOUND', `no listing ${l.id}`);
  return changed;
}

/** Who may make a listing's move: a platform admin for a review, else the creator organization's managers. */
export function moverOf(action: ListingAction): string {
  return LISTING_MOVES[action].by === 'reviewer'
    ? 'a platform admin'
    : "the creator organization's owners and admins (or a platform admin)";
}

export async function moveListingBy(
  db: Queryable,
  caller: MarketCaller,
  id: string,
  action: ListingAction,
): Promise<Listing> {
  const l = await listingOf(db, caller, id);
  const move = LISTING_MOVES[action];
  const may = move.by === 'reviewer' ? caller.platformAdmin : await isManager(db, caller, l.creator_org_id);
  if (!may) throw forbidden(`only ${moverOf(action)} may ${action} a listing`);
  return moveListing(db, l.id, move);
}

export async function buyLicense(
  db: Database,
  caller: MarketCaller,
  b: Omit<Parameters<typeof createLicense>[1], 'purchased_by'> & { purchased_by?: string | undefined },
): Promise<License> {
  await listingOf(db, caller, b.listing_id);
  await managedOrganization(
    db,
    caller,
    b.organization_id,
    'only owners and admins of the organization buy its licenses',
  );
  return createLicense(db, { ...b, purchased_by: await actor(db, caller, b.purchased_by, 'purchased_by') });
}

/** A license the caller manages (its organization's owners and admins), or 403 saying they may not `doWhat`. */
async function managedLicense(db: Database, caller: MarketCaller, id: string, doWhat: string): Promise<License> {
  const x = await licenseOf(db, caller, id);
  if (!(await isManager(db, caller, x.organization_id)))
    throw forbidden(`only owners and admins of the license's organization ${doWhat}`);
  return x;
}

export async function changeLicense(
  db: Database,
  caller: MarketCaller,
  id: string,
  changes: Parameters<typeof updateLicense>[2],
): Promise<License> {
  const x = await managedLicense(db, caller, id, 'change it');
  const changed = await updateLicense(db, x.id, changes);
  if (!changed) throw new HttpError(404, 'NOT_FOUND', `no license ${x.id}`);
  return changed;
}

export async function giveSeat(
  db: Database,
  caller: MarketCaller,
  id: string,
  b: { principal_id: string; assigned_by?: string | undefined },
): ReturnType<typeof assignSeat> {
  const x = await managedLicense(db, caller, id, 'assign its seats');
  const principalId = b.principal_id;
  if (!(await findPrincipal(db, principalId))) throw new HttpError(404, 'NOT_FOUND', `no principal ${principalId}`);
  if ((await activeRole(db, x.organization_id, principalId)) === undefined)
    throw new HttpError(409, 'CONFLICT', "seats go to active members of the license's organization only");
  const assignedBy = caller.principalId
    ? actingPrincipal(caller, b.assigned_by, 'assigned_by')
    : (b.assigned_by ?? null);
  return assignSeat(db, x.id, principalId, assignedBy);
}

export async function takeSeat(db: Database, caller: MarketCaller, id: string, principalId: string): Promise<void> {
  const x = await managedLicense(db, caller, id, 'take seats back');
  if (!(await unassignSeat(db, x.id, principalId)))
    throw new HttpError(404, 'NOT_FOUND', 'this principal holds no seat of this license');
}
