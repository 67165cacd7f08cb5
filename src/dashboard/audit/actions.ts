/**
 * Every action the service records in its audit log, `<thing>.<verb>` (docs/dashboard.md, "Audit log"): recordAudit
 * takes no other, and the console's audit log offers exactly these as its filter, so a new action is added here once.
 * Nothing but this list in this file: the web app imports it.
 */
export const AUDIT_ACTIONS = [
  'dashboard.create',
  'dashboard.update',
  'dashboard.delete',
  'dashboard.restore',
  'dashboard.share',
  'dashboard.unshare',
  'dashboard.access',
  'dashboard.render',
  'datasource.create',
  'datasource.update',
  'datasource.delete',
  'datasource.test',
  'query.run',
  'savedquery.create',
  'savedquery.update',
  'savedquery.delete',
  'alertrule.create',
  'alertrule.update',
  'alertrule.delete',
  'alertrule.silence',
  'alertrule.unsilence',
  'alertchannel.create',
  'alertchannel.update',
  'alertchannel.delete',
  'subscription.create',
  'subscription.update',
  'subscription.delete',
  'user.create',
  'user.rename',
  'user.role_change',
  'user.deactivate',
  'user.reactivate',
  'user.password_link',
  'user.sign_in',
  'tenant.create',
  'tenant.update',
  'setup.first_owner',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
