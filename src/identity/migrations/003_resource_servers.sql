-- An app registered as a resource server may introspect tokens issued to other apps; every other app
-- learns the details of its own tokens only (RFC 7662 section 4), so a third-party app cannot read
-- another app's users through introspection.
ALTER TABLE oauth_apps ADD COLUMN resource_server boolean NOT NULL DEFAULT false;
