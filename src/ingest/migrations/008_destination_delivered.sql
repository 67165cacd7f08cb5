-- How many events each destination has taken, counted by the delivery worker as it completes them: the console's
-- delivery figures (delivered beside waiting, retrying and dead). A count, not a log: it never needs cleaning.
ALTER TABLE destinations ADD COLUMN delivered bigint NOT NULL DEFAULT 0;
