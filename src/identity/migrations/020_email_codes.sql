-- Codes mailed to a person's address (src/identity/email-codes/): `verify` proves they read the mailbox (the address
-- becomes verified), `sign_in` signs them in without a password where the app allows it (oauth_apps.email_code_sign_in).
-- Six digits, so kept only as an HMAC under PLATFORM_SECRET_KEY (a plain hash of a million values is no secret); a few
-- wrong tries spend the code.
CREATE TABLE email_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('verify', 'sign_in')),
  -- The address the code went to (lower case): a code for an address the person no longer has proves nothing.
  email text NOT NULL,
  code_hash text NOT NULL,
  -- What the code is for: the principal's id for `verify`, the SHA-256 of the sign-in request's uid for `sign_in`.
  bound_to text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX email_codes_lookup_idx ON email_codes (email, purpose, bound_to);
CREATE INDEX email_codes_principal_idx ON email_codes (principal_id);

-- Per application: its sign-in page also offers "Email me a sign-in code".
ALTER TABLE oauth_apps ADD COLUMN email_code_sign_in boolean NOT NULL DEFAULT false;

-- Per application: the colour of its sign-in and consent pages' buttons and links (apps/brand.ts checks its contrast).
ALTER TABLE oauth_apps ADD COLUMN brand_color text;
