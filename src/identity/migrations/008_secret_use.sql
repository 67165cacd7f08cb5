-- Client secrets are revoked with a reason, like every other credential, and record the address of their last use
-- next to last_used_at (written at most once a minute per secret, off the request's path).
ALTER TABLE oauth_app_secrets ADD COLUMN revoked_reason text;
ALTER TABLE oauth_app_secrets ADD COLUMN last_used_ip text;
