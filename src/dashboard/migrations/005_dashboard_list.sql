-- Search over title and description (ILIKE '%term%') through trigram indexes where PostgreSQL has
-- pg_trgm (a trusted extension since PostgreSQL 13, so the service's own role may create it).
-- Without it (embedded PGlite, a server without contrib) search still works by scanning the tenant's rows.
DO $$
DECLARE
  trgm_schema text;
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available (%): dashboard search scans rows', SQLERRM;
  END;
  SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  IF trgm_schema IS NOT NULL THEN
    EXECUTE format('CREATE INDEX IF NOT EXISTS dashboards_title_trgm ON dashboards USING gin (title %I.gin_trgm_ops)', trgm_schema);
    EXECUTE format('CREATE INDEX IF NOT EXISTS dashboards_description_trgm ON dashboards USING gin (description %I.gin_trgm_ops)', trgm_schema);
  END IF;
END $$;

-- Each tenant's dashboard count, kept by statement triggers (which find their tables whatever the
-- writer's search_path), so the list's `meta.total` without a
-- search is one row read instead of a count over every dashboard of the tenant.
CREATE TABLE dashboard_counts (
  tenant_id  bigint PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  n          bigint NOT NULL DEFAULT 0
);
INSERT INTO dashboard_counts (tenant_id, n) SELECT tenant_id, count(*) FROM dashboards GROUP BY tenant_id;

CREATE FUNCTION dashboard_counts_added() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO dashboard_counts (tenant_id, n) SELECT tenant_id, count(*) FROM added GROUP BY tenant_id
  ON CONFLICT (tenant_id) DO UPDATE SET n = dashboard_counts.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE FUNCTION dashboard_counts_removed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE dashboard_counts c SET n = c.n - r.n
    FROM (SELECT tenant_id, count(*) AS n FROM removed GROUP BY tenant_id) r WHERE c.tenant_id = r.tenant_id;
  RETURN NULL;
END $$;

CREATE TRIGGER dashboards_counted_insert AFTER INSERT ON dashboards REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION dashboard_counts_added();
CREATE TRIGGER dashboards_counted_delete AFTER DELETE ON dashboards REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION dashboard_counts_removed();
