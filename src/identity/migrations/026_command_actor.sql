-- A `platform identity ...` command an operator runs on the server (console-rights set) is an actor of its own in the
-- change log: no person's token, not IDENTITY_ADMIN_TOKEN, and not the platform acting by itself at its first run.
ALTER TABLE admin_changes DROP CONSTRAINT admin_changes_actor_kind_check;
ALTER TABLE admin_changes ADD CONSTRAINT admin_changes_actor_kind_check
  CHECK (actor_kind IN ('person', 'admin-token', 'platform', 'command', 'anonymous'));
