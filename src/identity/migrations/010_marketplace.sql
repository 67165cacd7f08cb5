-- The marketplace (Document 2): listings an organization offers, licenses organizations hold to them,
-- seats of a license assigned to principals, and one subscription per organization whose state follows
-- the payment provider's webhooks (payment_events keeps each event id once, for idempotency).

CREATE TABLE listings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  product_type text NOT NULL CHECK (product_type <> ''),
  product_id uuid,
  title text NOT NULL CHECK (title <> ''),
  description text,
  pricing_model text NOT NULL DEFAULT 'free' CHECK (pricing_model IN ('free', 'one_time', 'subscription', 'per_seat')),
  price_cents bigint NOT NULL DEFAULT 0 CHECK (price_cents >= 0),
  currency text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'pending_review', 'published', 'archived')),
  metadata jsonb,
  published_at timestamptz,
  creator_org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  owner_id uuid NOT NULL REFERENCES principals (id)
);
CREATE INDEX listings_status_idx ON listings (status, id);
CREATE INDEX listings_creator_idx ON listings (creator_org_id, id);

CREATE TABLE licenses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  license_type text NOT NULL DEFAULT 'unlimited' CHECK (license_type IN ('seat_based', 'team', 'unlimited')),
  seats integer CHECK (seats > 0),
  used_seats integer NOT NULL DEFAULT 0 CHECK (used_seats >= 0),
  valid_from timestamptz NOT NULL DEFAULT now(),
  valid_until timestamptz,
  payment_subscription_id text,
  listing_id uuid NOT NULL REFERENCES listings (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  purchased_by uuid NOT NULL REFERENCES principals (id),
  UNIQUE (listing_id, organization_id),
  -- Seats are counted for seat_based and team licenses; an unlimited one has none. The database itself
  -- refuses a count above the seats, as the last line behind the conditional update that assigns a seat.
  CHECK ((license_type = 'unlimited') = (seats IS NULL)),
  CHECK (seats IS NULL OR used_seats <= seats),
  CHECK (valid_until IS NULL OR valid_until > valid_from)
);
CREATE INDEX licenses_org_idx ON licenses (organization_id, id);

CREATE TABLE seat_assignments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  assigned_at timestamptz NOT NULL DEFAULT now(),
  license_id uuid NOT NULL REFERENCES licenses (id) ON DELETE CASCADE,
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  assigned_by uuid REFERENCES principals (id) ON DELETE SET NULL,
  UNIQUE (license_id, principal_id)
);

CREATE TABLE subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  plan_tier text NOT NULL DEFAULT 'free' CHECK (plan_tier IN ('free', 'starter', 'pro', 'enterprise')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'trialing', 'past_due', 'canceled', 'unpaid')),
  current_period_start timestamptz,
  current_period_end timestamptz,
  payment_subscription_id text UNIQUE,
  payment_customer_id text,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  organization_id uuid NOT NULL UNIQUE REFERENCES organizations (id) ON DELETE CASCADE,
  -- The `created` time (seconds) and id of the newest provider event applied: an older event arriving
  -- later is recorded but does not roll the state back.
  last_event_created bigint,
  last_event_id text
);

CREATE TABLE payment_events (
  event_id text PRIMARY KEY,
  provider text NOT NULL,
  type text NOT NULL,
  created bigint NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  outcome text NOT NULL,
  subscription_id uuid REFERENCES subscriptions (id) ON DELETE SET NULL
);
