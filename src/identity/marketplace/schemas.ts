import { Type, type Static } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { JsonObject, Nullable, Uuid } from '../api/schemas.ts';
import type { LISTING_STATUSES } from './listing-transitions.ts';
import type { LICENSE_TYPES } from './license-store.ts';
import type { PRICING_MODELS } from './listing-store.ts';

export const ListingStatus = Type.Union([
  Type.Literal('draft'),
  Type.Literal('pending_review'),
  Type.Literal('published'),
  Type.Literal('archived'),
]);
export const PricingModel = Type.Union([
  Type.Literal('free'),
  Type.Literal('one_time'),
  Type.Literal('subscription'),
  Type.Literal('per_seat'),
]);
export const LicenseType = Type.Union([Type.Literal('seat_based'), Type.Literal('team'), Type.Literal('unlimited')]);
// The unions above spell out the stores' lists (kept in one place there): checked here at compile time.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _same: [
  Same<Static<typeof ListingStatus>, (typeof LISTING_STATUSES)[number]>,
  Same<Static<typeof PricingModel>, (typeof PRICING_MODELS)[number]>,
  Same<Static<typeof LicenseType>, (typeof LICENSE_TYPES)[number]>,
] = [true, true, true];
void _same;

export const ListingOut = Type.Object({
  id: Uuid,
  product_type: Type.String(),
  product_id: Nullable(Uuid),
  title: Type.String(),
  description: Nullable(Type.String()),
  pricing_model: PricingModel,
  price_cents: Type.Integer(),
  currency: Type.String(),
  status: ListingStatus,
  metadata: Nullable(JsonObject),
  published_at: Nullable(Timestamp),
  creator_org_id: Uuid,
  owner_id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Title = Type.String({ minLength: 1, maxLength: 200 });
const ProductType = Type.String({ minLength: 1, maxLength: 100 });
const Description = Type.String({ maxLength: 10_000 });
const Price = Type.Integer({ minimum: 0, maximum: 1e13, description: "In the currency's minor unit (cents)." });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. USD' });

export const NewListing = Type.Object(
  {
    creator_org_id: Uuid,
    owner_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'Defaults to the caller; required with IDENTITY_ADMIN_TOKEN.' }),
    ),
    product_type: ProductType,
    product_id: Type.Optional(Uuid),
    title: Title,
    description: Type.Optional(Description),
    pricing_model: Type.Optional(PricingModel),
    price_cents: Type.Optional(Price),
    currency: Type.Optional(Currency),
    metadata: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

export const ListingChanges = Type.Object(
  {
    product_type: Type.Optional(ProductType),
    product_id: Type.Optional(Nullable(Uuid)),
    title: Type.Optional(Title),
    description: Type.Optional(Nullable(Description)),
    pricing_model: Type.Optional(PricingModel),
    price_cents: Type.Optional(Price),
    currency: Type.Optional(Currency),
    metadata: Type.Optional(Nullable(JsonObject)),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Every field while a draft; afterwards only description and metadata (409 otherwise); nothing once archived.',
  },
);

export const LicenseOut = Type.Object({
  id: Uuid,
  license_type: LicenseType,
  seats: Nullable(Type.Integer()),
  used_seats: Type.Integer(),
  valid_from: Timestamp,
  valid_until: Nullable(Timestamp),
  payment_subscription_id: Nullable(Type.String()),
  listing_id: Uuid,
  organization_id: Uuid,
  purchased_by: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Seats = Type.Integer({ minimum: 1, maximum: 1_000_000 });
const PaymentId = Type.String({ minLength: 1, maxLength: 255 });

export const NewLicense = Type.Object(
  {
    listing_id: Uuid,
    organization_id: Uuid,
    purchased_by: Type.Optional(
      Type.String({ format: 'uuid', description: 'Defaults to the caller; required with IDENTITY_ADMIN_TOKEN.' }),
    ),
    license_type: Type.Optional(LicenseType),
    seats: Type.Optional(Seats),
    valid_from: Type.Optional(Timestamp),
    valid_until: Type.Optional(Timestamp),
    payment_subscription_id: Type.Optional(PaymentId),
  },
  { additionalProperties: false },
);

export const LicenseChanges = Type.Object(
  {
    seats: Type.Optional(Seats),
    valid_until: Type.Optional(Nullable(Timestamp)),
    payment_subscription_id: Type.Optional(Nullable(PaymentId)),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SeatOut = Type.Object({
  id: Uuid,
  license_id: Uuid,
  principal_id: Uuid,
  assigned_by: Nullable(Uuid),
  assigned_at: Timestamp,
});
export const NewSeat = Type.Object(
  {
    principal_id: Uuid,
    assigned_by: Type.Optional(Type.String({ format: 'uuid', description: 'Defaults to the caller.' })),
  },
  { additionalProperties: false },
);
