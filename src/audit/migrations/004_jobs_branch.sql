-- The branch a CI run audited (`platform audit run --branch`), so the next run can compare with the last completed
-- run of a branch: the newest completed job of the owner for the same URL and branch.
ALTER TABLE jobs ADD COLUMN branch text;
CREATE INDEX jobs_owner_branch ON jobs (owner, url, branch, seq DESC) WHERE status = 'completed';
