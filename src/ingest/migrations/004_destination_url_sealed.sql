-- A destination's URL can itself be a secret (Slack, Zapier webhooks): from here on base_url holds only its
-- redacted form (scheme, host, port and `/…`) and the whole URL is sealed with PLATFORM_SECRET_KEY, bound to
-- the destination id. SQL has no key, so rows written before keep their URL in clear with base_url_sealed NULL:
-- the service reads those as they are and seals them when an instance starts or first delivers to them.
ALTER TABLE destinations ADD COLUMN base_url_sealed text;
