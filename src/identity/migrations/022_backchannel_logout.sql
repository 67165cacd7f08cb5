-- OpenID Connect back-channel logout: when a person's session ends, every app that registered a
-- backchannel_logout_uri and was signed in through that session gets a logout token.
--
-- The provider's browser sessions (oidc_artifacts, model 'Session') are linked to the person (account_id) and to the
-- login session they were made under (login_hash: the SHA-256 of the login cookie, as login_sessions.token_hash), both
-- written by the adapter. A login session that ends while live, and a principal deactivated, queue the provider
-- sessions they cover here, by trigger: every path that ends a session (sign-out, the sessions page, an administrator,
-- a password reset, deactivation) goes through it without knowing of it. The sealed payload is copied, so the queue
-- still knows the session's apps after the session itself is gone.
ALTER TABLE oidc_artifacts ADD COLUMN account_id text;
ALTER TABLE oidc_artifacts ADD COLUMN login_hash text;
CREATE INDEX oidc_artifacts_session_account_idx ON oidc_artifacts (account_id) WHERE model = 'Session';
CREATE INDEX oidc_artifacts_session_login_idx ON oidc_artifacts (login_hash) WHERE model = 'Session';

ALTER TABLE oauth_apps ADD COLUMN backchannel_logout_uri text;
ALTER TABLE oauth_apps ADD COLUMN backchannel_logout_session_required boolean NOT NULL DEFAULT true;

CREATE TABLE backchannel_logouts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id_hash text NOT NULL UNIQUE,
  payload text NOT NULL,
  reason text NOT NULL,
  -- The apps already told, so a retry tells only the others.
  done_clients text[] NOT NULL DEFAULT '{}',
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX backchannel_logouts_due_idx ON backchannel_logouts (next_attempt_at) WHERE state = 'pending';

CREATE FUNCTION queue_logout_of_login_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.expires_at > now() THEN
    INSERT INTO backchannel_logouts (session_id_hash, payload, reason)
    SELECT id_hash, payload, 'session_ended' FROM oidc_artifacts WHERE model = 'Session' AND login_hash = OLD.token_hash
    ON CONFLICT (session_id_hash) DO NOTHING;
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER login_sessions_backchannel_logout AFTER DELETE ON login_sessions
  FOR EACH ROW EXECUTE FUNCTION queue_logout_of_login_session();

CREATE FUNCTION queue_logout_of_principal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.active AND NOT NEW.active THEN
    INSERT INTO backchannel_logouts (session_id_hash, payload, reason)
    SELECT id_hash, payload, 'deactivated' FROM oidc_artifacts WHERE model = 'Session' AND account_id = NEW.id::text
    ON CONFLICT (session_id_hash) DO NOTHING;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER principals_backchannel_logout AFTER UPDATE OF active ON principals
  FOR EACH ROW EXECUTE FUNCTION queue_logout_of_principal();
