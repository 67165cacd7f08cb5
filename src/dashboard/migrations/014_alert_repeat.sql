-- Reminders while a rule stays firing, no data or error (Grafana's repeat interval, Redash's rearm).
-- repeat_minutes NULL: never, as before. last_notified_at is the reminder clock: when the rule last notified or,
-- silenced, would have; a reminder is due at the first evaluation at or after it plus repeat_minutes.
ALTER TABLE alert_rules
  ADD COLUMN repeat_minutes integer CHECK (repeat_minutes BETWEEN 5 AND 10080),
  ADD COLUMN last_notified_at timestamptz,
  -- A reminder can only come with an evaluation: one asked for more often than the rule is evaluated is refused.
  ADD CONSTRAINT alert_rules_repeat_not_below_interval CHECK (repeat_minutes >= interval_minutes);
