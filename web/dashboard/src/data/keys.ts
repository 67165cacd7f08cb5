/**
 * Every key of the app's query cache, in one place. A key starts with the API collection it reads, so a change
 * invalidates by prefix: `keys.dataSources.all` covers the list, each source and each schema; `keys.users.all` both the
 * Users pages and the audit log's list of actors. Widget runs live under a root of their own so that invalidating a
 * dashboard never runs its widgets' SQL again behind the person's back.
 */
export const keys = {
  /** Who this tab is: signed in (and as whom), first run, or signed out. */
  session: ['session'] as const,
  setup: ['setup'] as const,
  providers: ['auth', 'providers'] as const,
  dataSources: {
    all: ['datasources'] as const,
    list: () => ['datasources', 'list'] as const,
    one: (id: number) => ['datasources', id] as const,
    schema: (id: number) => ['datasources', id, 'schema'] as const,
  },
  savedQueries: {
    all: ['queries'] as const,
    every: () => ['queries', 'every'] as const,
    pages: () => ['queries', 'pages'] as const,
    one: (id: number) => ['queries', id] as const,
  },
  /** The person's own SQL editor runs. */
  history: (limit: number) => ['history', limit] as const,
  dashboards: {
    all: ['dashboards'] as const,
    lists: ['dashboards', 'list'] as const,
    list: (params: object) => ['dashboards', 'list', params] as const,
    one: (id: number) => ['dashboards', id] as const,
    versions: (id: number) => ['dashboards', id, 'versions'] as const,
    share: (id: number) => ['dashboards', id, 'share'] as const,
    access: (id: number) => ['dashboards', id, 'access'] as const,
  },
  users: {
    all: ['users'] as const,
    pages: () => ['users', 'pages'] as const,
    every: () => ['users', 'every'] as const,
  },
  tenants: ['tenants'] as const,
  audit: ['audit'] as const,
  /** Alert rules (the list, one, its history and deliveries) and the channels they notify. */
  alerts: {
    all: ['alerts'] as const,
    list: () => ['alerts', 'list'] as const,
    one: (id: number) => ['alerts', id] as const,
    history: (id: number) => ['alerts', id, 'history'] as const,
    deliveries: (id: number) => ['alerts', id, 'deliveries'] as const,
    channels: ['alerts', 'channels'] as const,
  },
  /** A dashboard's email subscriptions. */
  subscriptions: {
    all: ['subscriptions'] as const,
    ofDashboard: (id: number) => ['subscriptions', 'dashboard', id] as const,
  },
  publicDashboard: (token: string) => ['public', token] as const,
  /** The console: its configuration, and each section's reads under the section's name. */
  console: { config: ['console', 'config'] as const },
  /** Identity's organizations (under identity's root, so `keys.identity.all` covers them): the list, one, its people. */
  organizations: {
    all: ['identity', 'organizations'] as const,
    list: () => ['identity', 'organizations', 'list'] as const,
    one: (id: string) => ['identity', 'organizations', id] as const,
    members: (id: string) => ['identity', 'organizations', id, 'members'] as const,
    invites: (id: string) => ['identity', 'organizations', id, 'invites'] as const,
    enterpriseSso: (id: string) => ['identity', 'organizations', id, 'enterprise-sso'] as const,
  },
  /** Identity's change log: a page list per filter. */
  adminLog: ['identity', 'admin-log'] as const,
  /** Who acts for whom at identity: a page list per filter. */
  delegations: ['identity', 'delegations'] as const,
  /** Identity's signing keys. */
  signingKeys: ['identity', 'signing-keys'] as const,
  /** Identity's SCIM connections: a page list. */
  scimConnections: ['identity', 'scim-connections'] as const,
  /** identity's marketplace: listings, licenses with their seats, and organizations' subscriptions. */
  market: {
    listings: ['identity', 'listings'] as const,
    listing: (id: string) => ['identity', 'listings', id] as const,
    licenses: ['identity', 'licenses'] as const,
    license: (id: string) => ['identity', 'licenses', id] as const,
    seats: (id: string) => ['identity', 'licenses', id, 'seats'] as const,
    subscription: (orgId: string) => ['identity', 'organizations', orgId, 'subscription'] as const,
  },
  identity: {
    all: ['identity'] as const,
    applications: () => ['identity', 'applications'] as const,
    application: (id: string) => ['identity', 'applications', id] as const,
    scopes: () => ['identity', 'scopes'] as const,
    people: () => ['identity', 'people'] as const,
    person: (id: string) => ['identity', 'people', id] as const,
  },
  /** The audit service's runs (lists per filter, one run, comparisons) and the person's API keys for CI. */
  audits: {
    all: ['audits'] as const,
    runs: ['audits', 'runs'] as const,
    run: (id: string) => ['audits', 'runs', id] as const,
    trend: (url: string) => ['audits', 'runs', 'trend', url] as const,
    comparison: (id: string, baseId: string) => ['audits', 'compare', id, baseId] as const,
    keys: ['audits', 'keys'] as const,
  },
  /** A widget's rows: where it is drawn (a dashboard, a public link), the widget, and what its rows depend on. */
  widgetRun: (scope: string, widgetId: string, reloadKey: string) => ['runs', scope, widgetId, reloadKey] as const,
};
