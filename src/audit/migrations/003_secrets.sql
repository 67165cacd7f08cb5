-- Secrets a caller's audits sign in with (passwords, session cookies, header tokens), by name, per credential like
-- jobs. `sealed` is the value encrypted with PLATFORM_SECRET_KEY (AES-256-GCM, bound to owner and name); no
-- endpoint answers it, and jobs keep only the names.
CREATE TABLE secrets (
  owner text NOT NULL,
  name text NOT NULL,
  sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner, name)
);
