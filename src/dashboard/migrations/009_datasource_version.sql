-- A data source's version, one more at every change of its row: a running instance opens a source's connection
-- settings (decrypts its URL, fingerprints its pool) once per version, and a change made on any instance gives
-- the row a new version, so no instance goes on with the settings of an earlier one.
ALTER TABLE data_sources ADD COLUMN version integer NOT NULL DEFAULT 1;
