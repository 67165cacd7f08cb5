import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { ListingStatus, Move } from './listing-transitions.ts';

export const PRICING_MODELS = ['free', 'one_time', 'subscription', 'per_seat'] as const;
export type PricingModel = (typeof PRICING_MODELS)[number];

export interface Listing {
  id: string;
  product_type: string;
  product_id: string | null;
  title: string;
  description: string | null;
  pricing_model: PricingModel;
  price_cents: number;
  currency: string;
  status: ListingStatus;
  metadata: Record<string, unknown> | null;
  published_at: string | null;
  creator_org_id: string;
  owner_id: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, product_type, product_id, title, description, pricing_model, price_cents, currency, status, metadata,
  ${isoUtc('published_at')} AS published_at, creator_org_id, owner_id, ${isoUtc('created_at')} AS created_at, ${isoUtc('updated_at')} AS updated_at`;

export interface ListingFields {
  product_type?: string | undefined;
  product_id?: string | null | undefined;
  title?: string | undefined;
  description?: string | null | undefined;
  pricing_model?: PricingModel | undefined;
  price_cents?: number | undefined;
  currency?: string | undefined;
  metadata?: Record<string, unknown> | null | undefined;
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** The rules a listing's fields must keep together, checked on the listing as it would be after a change. */
function checkFields(
  l: Required<Pick<ListingFields, 'title' | 'product_type' | 'pricing_model' | 'price_cents' | 'currency'>>,
): void {
  if (!l.title.trim()) throw new HttpError(400, 'VALIDATION_ERROR', 'title must not be empty');
  if (!l.product_type.trim()) throw new HttpError(400, 'VALIDATION_ERROR', 'product_type must not be empty');
  if (!CURRENCIES.has(l.currency))
    throw new HttpError(400, 'VALIDATION_ERROR', `currency "${l.currency}" is not an ISO 4217 code`);
  if (l.pricing_model === 'free' && l.price_cents !== 0)
    throw new HttpError(400, 'VALIDATION_ERROR', 'a free listing has price_cents 0');
  if (l.pricing_model !== 'free' && l.price_cents <= 0)
    throw new HttpError(400, 'VALIDATION_ERROR', `a ${l.pricing_model} listing needs a price_cents above 0`);
}

export async function createListing(
  db: Database,
  f: ListingFields & { title: string; product_type: string; creator_org_id: string; owner_id: string },
): Promise<Listing> {
  const merged = {
    title: f.title,
    product_type: f.product_type,
    pricing_model: f.pricing_model ?? 'free',
    price_cents: f.price_cents ?? 0,
    currency: f.currency ?? 'USD',
  };
  checkFields(merged);
  const r = await db.query<Listing>(
    `INSERT INTO listings (product_type, product_id, title, description, pricing_model, price_cents, currency, metadata, creator_org_id, owner_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      merged.product_type.trim(),
      f.product_id ?? null,
      merged.title.trim(),
      f.description ?? null,
      merged.pricing_model,
      merged.price_cents,
      merged.currency,
      f.metadata ? JSON.stringify(f.metadata) : null,
      f.creator_org_id,
      f.owner_id,
    ],
  );
  return r.rows[0]!;
}

export async function findListing(db: Queryable, id: string, lock = false): Promise<Listing | undefined> {
  return (await db.query<Listing>(`SELECT ${COLUMNS} FROM listings WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]))
    .rows[0];
}

/** Fields that may change once the listing has left `draft`: what it sells and its price are what was reviewed. */
const CHANGEABLE_AFTER_DRAFT = new Set(['description', 'metadata']);

export async function updateListing(db: Database, id: string, f: ListingFields): Promise<Listing | undefined> {
  return db.transaction(async (tx) => {
    const current = await findListing(tx, id, true);
    if (!current) return undefined;
    const changed = Object.keys(f).filter((k) => f[k as keyof ListingFields] !== undefined);
    if (current.status === 'archived') throw new HttpError(409, 'CONFLICT', 'an archived listing cannot change');
    const locked = changed.filter((k) => !CHANGEABLE_AFTER_DRAFT.has(k));
    if (current.status !== 'draft' && locked.length) {
      throw new HttpError(
        409,
        'CONFLICT',
        `${locked.join(', ')} can change only while the listing is a draft (it is ${current.status})`,
      );
    }
    const next = { ...current, ...Object.fromEntries(changed.map((k) => [k, f[k as keyof ListingFields]])) } as Listing;
    checkFields(next);
    const r = await tx.query<Listing>(
      `UPDATE listings SET product_type = $2, product_id = $3, title = $4, description = $5, pricing_model = $6, price_cents = $7, currency = $8,
          metadata = $9, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        next.product_type.trim(),
        next.product_id,
        next.title.trim(),
        next.description,
        next.pricing_model,
        next.price_cents,
        next.currency,
        next.metadata ? JSON.stringify(next.metadata) : null,
      ],
    );
    return r.rows[0];
  });
}

/**
 * One move of the status, as one conditional update: of two concurrent moves from the same state only
 * one happens, and the other finds the listing moved already (409). published_at is set only once.
 */
export async function moveListing(db: Queryable, id: string, move: Move): Promise<Listing> {
  const r = await db.query<Listing>(
    `UPDATE listings SET status = $3, updated_at = now(),
        published_at = CASE WHEN $3 = 'published' THEN coalesce(published_at, now()) ELSE published_at END
      WHERE id = $1 AND status = $2 RETURNING ${COLUMNS}`,
    [id, move.from, move.to],
  );
  const moved = r.rows[0];
  if (moved) return moved;
  const now = await findListing(db, id);
  if (!now) throw new HttpError(404, 'NOT_FOUND', `no listing ${id}`);
  throw new HttpError(409, 'CONFLICT', `a listing in ${now.status} cannot move to ${move.to} (only from ${move.from})`);
}

export interface ListingFilter {
  status?: ListingStatus | undefined;
  creatorOrgId?: string | undefined;
  productType?: string | undefined;
  /** For a caller who is not a platform admin: published and archived listings, and all of their organizations'. */
  visibleTo?: { principalId: string | undefined } | undefined;
  limit: number;
  after?: string | undefined;
}

export async function listListings(db: Queryable, f: ListingFilter): Promise<Listing[]> {
  const r = await db.query<Listing>(
    `SELECT ${COLUMNS} FROM listings l
      WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR creator_org_id = $2) AND ($3::text IS NULL OR product_type = $3)
        AND ($4::uuid IS NULL OR id > $4)
        AND (NOT $5::boolean OR status IN ('published', 'archived') OR EXISTS (
          SELECT 1 FROM principal_memberships m JOIN organizations o ON o.id = m.organization_id
           WHERE m.organization_id = l.creator_org_id AND m.principal_id = $6 AND m.active AND o.active))
      ORDER BY id LIMIT $7`,
    [
      f.status ?? null,
      f.creatorOrgId ?? null,
      f.productType ?? null,
      f.after ?? null,
      f.visibleTo !== undefined,
      f.visibleTo?.principalId ?? null,
      f.limit,
    ],
  );
  return r.rows;
}
