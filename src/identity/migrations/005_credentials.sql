-- API keys are found by the SHA-256 of the presented key (256 random bits, so a fast hash is enough).
CREATE UNIQUE INDEX credentials_api_key_hash ON credentials (secret_hash) WHERE type = 'api_key';

-- jti values of JWT assertions already used at the token endpoint (RFC 7523 3, item 7): a replay is
-- refused. Kept, as a hash, until the assertion itself would have expired.
CREATE TABLE assertion_jtis (
  jti_hash text PRIMARY KEY,
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX assertion_jtis_expiry_idx ON assertion_jtis (expires_at);
