-- Linking a social account from the signed-in person's linked accounts page: the in-flight login remembers whom the
-- upstream account is to be linked to (no row: an ordinary social sign-in).
ALTER TABLE login_states ADD COLUMN link_principal_id uuid REFERENCES principals (id) ON DELETE CASCADE;
