-- DPoP (RFC 9449). An app flagged dpop_bound_access_tokens (RFC 9449 section 5.2) must send a DPoP
-- proof with every token request; its tokens are then bound to the proof key.
ALTER TABLE oauth_apps ADD COLUMN dpop_bound_access_tokens boolean NOT NULL DEFAULT false;
-- The JWK SHA-256 thumbprint (RFC 7638) of the key a token is bound to; null for a bearer token. It is
-- also in the sealed payload, where the provider reads it; the column lets operators see bound tokens.
ALTER TABLE oauth_tokens ADD COLUMN dpop_jkt text;
