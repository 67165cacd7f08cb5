import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';

export const LICENSE_TYPES = ['seat_based', 'team', 'unlimited'] as const;
export type LicenseType = (typeof LICENSE_TYPES)[number];

export interface License {
  id: string;
  license_type: LicenseType;
  seats: number | null;
  used_seats: number;
  valid_from: string;
  valid_until: string | null;
  payment_subscription_id: string | null;
  listing_id: string;
  organization_id: string;
  purchased_by: string;
  created_at: string;
  updated_at: string;
}

export interface SeatAssignment {
  id: string;
  license_id: string;
  principal_id: string;
  assigned_by: string | null;
  assigned_at: string;
}

const COLUMNS = `id, license_type, seats, used_seats, ${isoUtc('valid_from')} AS valid_from, ${isoUtc('valid_until')} AS valid_until, payment_subscription_id,
  listing_id, organization_id, purchased_by, ${isoUtc('created_at')} AS created_at, ${isoUtc('updated_at')} AS updated_at`;
const SEAT_COLUMNS = `id, license_id, principal_id, assigned_by, ${isoUtc('assigned_at')} AS assigned_at`;

function checkSeats(type: LicenseType, seats: number | null | undefined): void {
  if (type === 'unlimited' && seats != null)
    throw new HttpError(400, 'VALIDATION_ERROR', 'an unlimited license has no seats');
  if (type !== 'unlimited' && seats == null)
    throw new HttpError(400, 'VALIDATION_ERROR', `a ${type} license needs seats`);
}

export interface NewLicense {
  listing_id: string;
  organization_id: string;
  purchased_by: string;
  license_type?: LicenseType | undefined;
  seats?: number | undefined;
  valid_from?: string | undefined;
  valid_until?: string | undefined;
  payment_subscription_id?: string | undefined;
}

/** A license for a published listing; one per (listing, organization), so a second one is 409. */
export async function createLicense(db: Database, f: NewLicense): Promise<License> {
  const type = f.license_type ?? 'unlimited';
  checkSeats(type, f.seats);
  if (f.valid_until && Date.parse(f.valid_until) <= Date.parse(f.valid_from ?? new Date().toISOString())) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'valid_until must be after valid_from');
  }
  return db.transaction(async (tx) => {
    // The listing is locked while the license is made, so it cannot be archived half-way through a sale.
    const listing = (
      await tx.query<{ status: string }>('SELECT status FROM listings WHERE id = $1 FOR SHARE', [f.listing_id])
    ).rows[0];
    if (!listing) throw new HttpError(404, 'NOT_FOUND', `no listing ${f.listing_id}`);
    if (listing.status !== 'published')
      throw new HttpError(
        409,
        'CONFLICT',
        `licenses are sold only for published listings (this one is ${listing.status})`,
      );
    try {
      const r = await tx.query<License>(
        `INSERT INTO licenses (license_type, seats, valid_from, valid_until, payment_subscription_id, listing_id, organization_id, purchased_by)
         VALUES ($1, $2, coalesce($3::timestamptz, now()), $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [
          type,
          f.seats ?? null,
          f.valid_from ?? null,
          f.valid_until ?? null,
          f.payment_subscription_id ?? null,
          f.listing_id,
          f.organization_id,
          f.purchased_by,
        ],
      );
      return r.rows[0]!;
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new HttpError(409, 'CONFLICT', 'this organization already holds a license for this listing');
      if ((err as { code?: string }).code === '23514')
        throw new HttpError(400, 'VALIDATION_ERROR', 'valid_until must be after valid_from');
      throw err;
    }
  });
}

export async function findLicense(db: Queryable, id: string): Promise<License | undefined> {
  return (await db.query<License>(`SELECT ${COLUMNS} FROM licenses WHERE id = $1`, [id])).rows[0];
}

export interface LicenseFilter {
  organizationId?: string | undefined;
  listingId?: string | undefined;
  /** For a caller who is not a platform admin: licenses of their organizations, and of listings their organizations sell. */
  visibleTo?: { principalId: string | undefined } | undefined;
  limit: number;
  after?: string | undefined;
}

export async function listLicenses(db: Queryable, f: LicenseFilter): Promise<License[]> {
  const r = await db.query<License>(
    `SELECT ${COLUMNS} FROM licenses x
      WHERE ($1::uuid IS NULL OR organization_id = $1) AND ($2::uuid IS NULL OR listing_id = $2) AND ($3::uuid IS NULL OR id > $3)
        AND (NOT $4::boolean OR EXISTS (
          SELECT 1 FROM principal_memberships m JOIN organizations o ON o.id = m.organization_id
           WHERE m.principal_id = $5 AND m.active AND o.active
             AND (m.organization_id = x.organization_id OR m.organization_id = (SELECT creator_org_id FROM listings WHERE id = x.listing_id))))
      ORDER BY id LIMIT $6`,
    [
      f.organizationId ?? null,
      f.listingId ?? null,
      f.after ?? null,
      f.visibleTo !== undefined,
      f.visibleTo?.principalId ?? null,
      f.limit,
    ],
  );
  return r.rows;
}

export async function updateLicense(
  db: Database,
  id: string,
  f: {
    seats?: number | undefined;
    valid_until?: string | null | undefined;
    payment_subscription_id?: string | null | undefined;
  },
): Promise<License | undefined> {
  return db.transaction(async (tx) => {
    const current = (await tx.query<License>(`SELECT ${COLUMNS} FROM licenses WHERE id = $1 FOR UPDATE`, [id])).rows[0];
    if (!current) return undefined;
    if (f.seats !== undefined) {
      if (current.license_type === 'unlimited')
        throw new HttpError(400, 'VALIDATION_ERROR', 'an unlimited license has no seats');
      // The row is locked: no seat can be assigned between this check and the update.
      if (f.seats < current.used_seats)
        throw new HttpError(
          409,
          'CONFLICT',
          `${current.used_seats} seats are assigned; unassign some before lowering seats to ${f.seats}`,
        );
    }
    if (f.valid_until && Date.parse(f.valid_until) <= Date.parse(current.valid_from))
      throw new HttpError(400, 'VALIDATION_ERROR', 'valid_until must be after valid_from');
    const r = await tx.query<License>(
      `UPDATE licenses SET seats = coalesce($2, seats),
          valid_until = CASE WHEN $3::boolean THEN $4::timestamptz ELSE valid_until END,
          payment_subscription_id = CASE WHEN $5::boolean THEN $6 ELSE payment_subscription_id END,
          updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        f.seats ?? null,
        f.valid_until !== undefined,
        f.valid_until ?? null,
        f.payment_subscription_id !== undefined,
        f.payment_subscription_id ?? null,
      ],
    );
    return r.rows[0];
  });
}

/**
 * Assigns a seat. The assignment and the count change in one transaction, and the count only goes up
 * through a conditional update (`used_seats < seats`): concurrent requests for the last seat queue on
 * the license row, and each re-checks the condition on the row as the one before left it, so exactly
 * as many succeed as there are seats and `used_seats` always equals the assignments.
 */
export async function assignSeat(
  db: Database,
  licenseId: string,
  principalId: string,
  assignedBy: string | null,
): Promise<{ seat: SeatAssignment; license: License }> {
  return db.transaction(async (tx) => {
    let seat: SeatAssignment;
    try {
      seat = (
        await tx.query<SeatAssignment>(
          `INSERT INTO seat_assignments (license_id, principal_id, assigned_by) VALUES ($1, $2, $3) RETURNING ${SEAT_COLUMNS}`,
          [licenseId, principalId, assignedBy],
        )
      ).rows[0]!;
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new HttpError(409, 'CONFLICT', 'this principal already holds a seat of this license');
      if ((err as { code?: string }).code === '23503')
        throw new HttpError(404, 'NOT_FOUND', 'no such license or principal');
      throw err;
    }
    const r = await tx.query<License>(
      `UPDATE licenses SET used_seats = used_seats + 1, updated_at = now()
        WHERE id = $1 AND (seats IS NULL OR used_seats < seats) AND valid_from <= now() AND (valid_until IS NULL OR valid_until > now())
        RETURNING ${COLUMNS}`,
      [licenseId],
    );
    const license = r.rows[0];
    if (!license) {
      const l = await findLicense(tx, licenseId);
      if (l && l.seats !== null && l.used_seats >= l.seats)
        throw new HttpError(409, 'CONFLICT', `all ${l.seats} seats of this license are taken`);
      throw new HttpError(409, 'CONFLICT', 'this license is not valid now (see valid_from and valid_until)');
    }
    return { seat, license };
  });
}

export async function unassignSeat(db: Database, licenseId: string, principalId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query('DELETE FROM seat_assignments WHERE license_id = $1 AND principal_id = $2', [
      licenseId,
      principalId,
    ]);
    if (r.rowCount === 0) return false;
    await tx.query('UPDATE licenses SET used_seats = used_seats - 1, updated_at = now() WHERE id = $1', [licenseId]);
    return true;
  });
}

export async function listSeats(
  db: Queryable,
  licenseId: string,
  f: { limit: number; after?: string | undefined },
): Promise<SeatAssignment[]> {
  const r = await db.query<SeatAssignment>(
    `SELECT ${SEAT_COLUMNS} FROM seat_assignments WHERE license_id = $1 AND ($2::uuid IS NULL OR principal_id > $2) ORDER BY principal_id LIMIT $3`,
    [licenseId, f.after ?? null, f.limit],
  );
  return r.rows;
}
