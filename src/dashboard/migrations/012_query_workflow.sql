-- Who last changed a saved query, and each person's recent runs in the SQL editor (kept to the last 100 a person).

ALTER TABLE saved_queries ADD COLUMN updated_by bigint REFERENCES users (id) ON DELETE SET NULL;
UPDATE saved_queries SET updated_by = created_by;

CREATE TABLE query_history (
  id              bigserial PRIMARY KEY,
  tenant_id       bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  data_source_id  bigint NOT NULL REFERENCES data_sources (id) ON DELETE CASCADE,
  query           text NOT NULL,
  params          jsonb NOT NULL DEFAULT '{}',
  row_count       integer,
  execution_ms    double precision,
  error           text,
  ran_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX query_history_user ON query_history (user_id, id DESC);
CREATE INDEX query_history_data_source ON query_history (data_source_id);
