-- Backoff per destination: consecutive failed rounds of a destination as a whole (an outage, a rate limit, refused
-- credentials), reset by its next delivery. The pause of the destination follows this count, while each event's
-- own retry delay follows its own attempts, so an old event that keeps failing does not lengthen the pause.
ALTER TABLE destinations ADD COLUMN failures integer NOT NULL DEFAULT 0;
