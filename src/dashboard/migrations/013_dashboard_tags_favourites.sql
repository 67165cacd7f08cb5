-- Issue 28: tags on dashboards (as written, compared case-insensitively) and each person's favourites.
ALTER TABLE dashboards ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
-- The list's tag filter matches lower-cased tags: tags are stored lower-cased here too, for the index.
ALTER TABLE dashboards ADD COLUMN tag_keys text[] NOT NULL DEFAULT '{}';
CREATE INDEX dashboards_tag_keys ON dashboards USING gin (tag_keys);

CREATE TABLE dashboard_favourites (
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  dashboard_id  bigint NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, dashboard_id)
);
CREATE INDEX dashboard_favourites_dashboard ON dashboard_favourites (dashboard_id);
