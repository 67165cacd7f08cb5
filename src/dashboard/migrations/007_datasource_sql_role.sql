-- Who may write SQL on a source (grafana#132814, "no way to restrict arbitrary query access"): the least role that
-- may run ad-hoc SQL on it and store SQL for it (saved queries, dashboard widgets). Reading what is stored is not
-- restricted: a viewer still sees the dashboards built on it.
ALTER TABLE data_sources ADD COLUMN sql_role text NOT NULL DEFAULT 'editor' CHECK (sql_role IN ('editor', 'admin', 'owner'));
