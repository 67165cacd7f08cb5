-- A due schedule is claimed, not held locked: a short transaction sets `claimed_until` (now plus a lease) and a
-- `claim_token` of the instance's own, and commits. The owner's right (a question to identity) and the site's address
-- (DNS) are asked with no transaction open; a second short transaction queues the run and moves next_run_at only if
-- the token is still there, clearing the claim. A claim whose holder died comes due again once its lease passes.
ALTER TABLE schedules ADD COLUMN claimed_until timestamptz, ADD COLUMN claim_token text;
