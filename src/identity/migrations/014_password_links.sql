-- One-time "choose your password" links (src/identity/password-links/): the token is shown once, to whoever made the
-- link, and kept only as its SHA-256. A link is spent (used_at) in the transaction that sets the password.
CREATE TABLE password_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  token_hash text NOT NULL UNIQUE,
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('setup')),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  -- Where the page sends the person once the password is set (the app that made the link, e.g. the dashboard's sign-in).
  continue_to text
);
CREATE INDEX password_links_principal_idx ON password_links (principal_id);
