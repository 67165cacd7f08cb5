import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { ApiUser } from '../api/types.ts';
import type { Right } from '../console/config.ts';

type Role = ApiUser['role'];
/** A console section's screen: opened by the person's right there (a scope of identity), not by a dashboard role. */
export interface RightAccess {
  right: Right;
}
type Access = Role | 'public' | RightAccess;

/** The navigation's sections: the dashboards (by role), then one per service of the platform (by right). */
export const SECTIONS = { dashboards: 'Dashboards', identity: 'Identity', audits: 'Audits', events: 'Events' } as const;
export type SectionName = keyof typeof SECTIONS;
/** What a `:name` segment holds: a positive integer id, or any one segment (a token). */
type Kind = 'id' | 'token';
type ParamNames<P extends string> = P extends `${string}:${infer N}/${infer Rest}`
  ? N | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer N}`
    ? N
    : never;
type KindsOf<P extends string> = { [K in ParamNames<P>]: Kind };
type ValuesOf<S> = { [K in keyof S]: S[K] extends 'id' ? number : string };

interface Definition<P extends string, S extends KindsOf<P>, A extends Access> {
  path: P;
  /** The kind of each `:name` in the path: an address whose segment is not of its kind is not this screen. */
  params: S;
  /**
   * `public`: anyone, without a session (its own frame, no navigation); a role: the least dashboard role that may open
   * it (the Dashboards section); `{right}`: a section of the console, for people holding that right.
   */
  access: A;
  /**
   * The screen's label in the main navigation, shown to the roles that may open it; none: not in the navigation. Only
   * a screen without parameters can be a destination of the navigation.
   */
  nav?: ParamNames<P> extends never ? string : never;
  /** What a person below `access` is shown: "Not available" (the default), or Home (no role is named). */
  denied?: 'home';
  /** Said while the screen's code loads. */
  loading: string;
  /** The screen's module: loaded when first opened, so the first screen carries none of them. */
  load: () => Promise<{ default: ComponentType<ValuesOf<S> & (A extends 'public' ? object : { me: ApiUser })> }>;
}

/** A route as the app uses it: its definition, its screen as a lazy component, and the pattern its addresses match. */
export interface Route {
  path: string;
  params: Record<string, Kind>;
  access: Access;
  nav?: string;
  denied?: 'home';
  loading: string;
  load: () => Promise<unknown>;
  // Each route's props differ; `define` checked them against its params, the renderer passes exactly those.
  Screen: LazyExoticComponent<ComponentType<any>>;
  pattern: RegExp;
  /** The path's parameter names, in the order they appear. */
  names: string[];
}

const SEGMENT: Record<Kind, string> = { id: '([1-9][0-9]{0,15})', token: '([^/]+)' };

function define<P extends string, const S extends KindsOf<P>, const A extends Access>(
  d: Definition<P, S, A>,
): Route & { readonly kinds: S } {
  const source = d.path.replace(
    /:([A-Za-z]+)/g,
    (_, name: string) => SEGMENT[(d.params as Record<string, Kind>)[name]!],
  );
  return {
    ...d,
    params: d.params as Record<string, Kind>,
    Screen: lazy(d.load),
    pattern: new RegExp(`^${source}$`),
    names: [...d.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!),
    kinds: d.params,
  };
}

/**
 * Every screen of the app: its address, the parameters in it, who may open it, its place in the navigation and its
 * code. The router, the navigation and every link read this table. A console section (identity, audits, events) is
 * its screens here with `access: { right }` and a lazily loaded module each: the navigation groups them under the
 * section's name, for people holding the right, and the service's client is `serviceClient(right)`
 * (console/client.ts). The order is the navigation's, and the first match wins.
 */
export const ROUTES = {
  home: define({
    path: '/',
    params: {},
    access: 'viewer',
    nav: 'Home',
    loading: 'Loading…',
    load: () => import('../home/HomeScreen.tsx'),
  }),
  dashboards: define({
    path: '/dashboards',
    params: {},
    access: 'viewer',
    nav: 'Dashboards',
    loading: 'Loading dashboards…',
    load: () => import('../dashboards/DashboardsScreen.tsx'),
  }),
  dashboard: define({
    path: '/dashboards/:id',
    params: { id: 'id' },
    access: 'viewer',
    loading: 'Loading the dashboard…',
    load: () => import('../dashboards/DashboardScreen.tsx'),
  }),
  alerts: define({
    path: '/alerts',
    params: {},
    access: 'viewer',
    nav: 'Alerts',
    loading: 'Loading alerts…',
    load: () => import('../alerts/AlertsScreen.tsx'),
  }),
  alertNew: define({
    path: '/alerts/new',
    params: {},
    access: 'editor',
    loading: 'Loading…',
    load: () => import('../alerts/AlertRuleFormScreen.tsx'),
  }),
  alert: define({
    path: '/alerts/:id',
    params: { id: 'id' },
    access: 'viewer',
    loading: 'Loading the alert rule…',
    load: () => import('../alerts/AlertRuleScreen.tsx'),
  }),
  alertEdit: define({
    path: '/alerts/:id/edit',
    params: { id: 'id' },
    access: 'editor',
    loading: 'Loading the alert rule…',
    load: () => import('../alerts/AlertRuleFormScreen.tsx'),
  }),
  dashboardSubscriptions: define({
    path: '/dashboards/:id/subscriptions',
    params: { id: 'id' },
    access: 'editor',
    loading: 'Loading subscriptions…',
    load: () => import('../subscriptions/SubscriptionsScreen.tsx'),
  }),
  dataSources: define({
    path: '/datasources',
    params: {},
    access: 'viewer',
    nav: 'Data sources',
    loading: 'Loading…',
    load: () => import('../datasources/DataSourcesScreen.tsx'),
  }),
  sql: define({
    path: '/sql',
    params: {},
    access: 'editor',
    nav: 'SQL editor',
    denied: 'home',
    loading: 'Loading the editor…',
    load: () => import('../sql/SqlScreen.tsx'),
  }),
  savedQueries: define({
    path: '/queries',
    params: {},
    access: 'viewer',
    nav: 'Saved queries',
    loading: 'Loading saved queries…',
    load: () => import('../queries/SavedQueriesScreen.tsx'),
  }),
  users: define({
    path: '/admin/users',
    params: {},
    access: 'admin',
    nav: 'Users',
    loading: 'Loading…',
    load: () => import('../admin/UsersScreen.tsx'),
  }),
  tenants: define({
    path: '/admin/tenants',
    params: {},
    access: 'owner',
    nav: 'Tenants',
    loading: 'Loading…',
    load: () => import('../admin/TenantsScreen.tsx'),
  }),
  audit: define({
    path: '/admin/audit',
    params: {},
    access: 'admin',
    nav: 'Audit log',
    loading: 'Loading…',
    load: () => import('../admin/AuditScreen.tsx'),
  }),
  applications: define({
    path: '/identity/applications',
    params: {},
    access: { right: 'identity' },
    nav: 'Applications',
    loading: 'Loading applications…',
    load: () => import('../identity/ApplicationsScreen.tsx'),
  }),
  applicationNew: define({
    path: '/identity/applications/new',
    params: {},
    access: { right: 'identity' },
    loading: 'Loading…',
    load: () => import('../identity/applications/NewApplicationScreen.tsx'),
  }),
  application: define({
    path: '/identity/applications/:id',
    params: { id: 'token' },
    access: { right: 'identity' },
    loading: 'Loading the application…',
    load: () => import('../identity/applications/ApplicationScreen.tsx'),
  }),
  people: define({
    path: '/identity/people',
    params: {},
    access: { right: 'identity' },
    nav: 'People',
    loading: 'Loading people…',
    load: () => import('../identity/people/PeopleScreen.tsx'),
  }),
  person: define({
    path: '/identity/people/:id',
    params: { id: 'token' },
    access: { right: 'identity' },
    loading: 'Loading the person…',
    load: () => import('../identity/people/PersonScreen.tsx'),
  }),
  organizations: define({
    path: '/identity/organizations',
    params: {},
    access: { right: 'identity' },
    nav: 'Organizations',
    loading: 'Loading organizations…',
    load: () => import('../identity/orgs/OrganizationsScreen.tsx'),
  }),
  organization: define({
    path: '/identity/organizations/:id',
    params: { id: 'token' },
    access: { right: 'identity' },
    loading: 'Loading the organization…',
    load: () => import('../identity/orgs/OrganizationScreen.tsx'),
  }),
  agents: define({
    path: '/identity/agents',
    params: {},
    access: { right: 'identity' },
    nav: 'Agents',
    loading: 'Loading agents…',
    load: () => import('../identity/agents/AgentsScreen.tsx'),
  }),
  signingKeys: define({
    path: '/identity/signing-keys',
    params: {},
    access: { right: 'identity' },
    nav: 'Signing keys',
    loading: 'Loading signing keys…',
    load: () => import('../identity/keys/SigningKeysScreen.tsx'),
  }),
  provisioning: define({
    path: '/identity/provisioning',
    params: {},
    access: { right: 'identity' },
    nav: 'Provisioning (SCIM)',
    loading: 'Loading the SCIM connections…',
    load: () => import('../identity/provisioning/ProvisioningScreen.tsx'),
  }),
  marketplace: define({
    path: '/identity/marketplace',
    params: {},
    access: { right: 'identity' },
    nav: 'Marketplace',
    loading: 'Loading the marketplace…',
    load: () => import('../identity/market/MarketplaceScreen.tsx'),
  }),
  license: define({
    path: '/identity/marketplace/licenses/:id',
    params: { id: 'token' },
    access: { right: 'identity' },
    loading: 'Loading the license…',
    load: () => import('../identity/market/LicenseScreen.tsx'),
  }),
  changeLog: define({
    path: '/identity/change-log',
    params: {},
    access: { right: 'identity' },
    nav: 'Change log',
    loading: 'Loading the change log…',
    load: () => import('../identity/changes/ChangeLogScreen.tsx'),
  }),
  eventProjects: define({
    path: '/events/projects',
    params: {},
    access: { right: 'events' },
    nav: 'Projects',
    loading: 'Loading projects…',
    load: () => import('../events/projects/ProjectsScreen.tsx'),
  }),
  eventProject: define({
    path: '/events/projects/:id',
    params: { id: 'token' },
    access: { right: 'events' },
    loading: 'Loading the project…',
    load: () => import('../events/projects/ProjectScreen.tsx'),
  }),
  eventDestination: define({
    path: '/events/destinations/:id',
    params: { id: 'token' },
    access: { right: 'events' },
    loading: 'Loading the destination…',
    load: () => import('../events/destinations/DestinationScreen.tsx'),
  }),
  auditSites: define({
    path: '/audits/sites',
    params: {},
    access: { right: 'audits' },
    nav: 'Sites',
    loading: 'Loading sites…',
    load: () => import('../audits/sites/SitesScreen.tsx'),
  }),
  auditSiteNew: define({
    path: '/audits/sites/new',
    params: {},
    access: { right: 'audits' },
    loading: 'Loading…',
    load: () => import('../audits/sites/SiteNewScreen.tsx'),
  }),
  auditSite: define({
    path: '/audits/sites/:id',
    params: { id: 'token' },
    access: { right: 'audits' },
    loading: 'Loading the site…',
    load: () => import('../audits/sites/SiteScreen.tsx'),
  }),
  auditSiteEdit: define({
    path: '/audits/sites/:id/edit',
    params: { id: 'token' },
    access: { right: 'audits' },
    loading: 'Loading the site…',
    load: () => import('../audits/sites/SiteEditScreen.tsx'),
  }),
  auditRuns: define({
    path: '/audits/runs',
    params: {},
    access: { right: 'audits' },
    nav: 'Runs',
    loading: 'Loading runs…',
    load: () => import('../audits/runs/RunsScreen.tsx'),
  }),
  auditCompare: define({
    path: '/audits/runs/:id/compare/:baseId',
    params: { id: 'token', baseId: 'token' },
    access: { right: 'audits' },
    loading: 'Loading the comparison…',
    load: () => import('../audits/runs/CompareScreen.tsx'),
  }),
  auditReport: define({
    path: '/audits/runs/:id',
    params: { id: 'token' },
    access: { right: 'audits' },
    loading: 'Loading the report…',
    load: () => import('../audits/report/ReportScreen.tsx'),
  }),
  auditKeys: define({
    path: '/audits/keys',
    params: {},
    access: { right: 'audits' },
    nav: 'API keys',
    loading: 'Loading API keys…',
    load: () => import('../audits/keys/KeysScreen.tsx'),
  }),
  eventsLive: define({
    path: '/events/live',
    params: {},
    access: { right: 'events' },
    nav: 'Live events',
    loading: 'Loading the live view…',
    load: () => import('../events/live/LiveScreen.tsx'),
  }),
  eventsExplorer: define({
    path: '/events/explorer',
    params: {},
    access: { right: 'events' },
    nav: 'Explorer',
    loading: 'Loading the explorer…',
    load: () => import('../events/explorer/ExplorerScreen.tsx'),
  }),
  eventDetail: define({
    path: '/events/explorer/:project/:eventId',
    params: { project: 'token', eventId: 'token' },
    access: { right: 'events' },
    loading: 'Loading the event…',
    load: () => import('../events/explorer/EventScreen.tsx'),
  }),
  publicDashboard: define({
    path: '/public/:token',
    params: { token: 'token' },
    access: 'public',
    loading: 'Loading the dashboard…',
    load: () => import('../public/PublicDashboard.tsx'),
  }),
};

export type RouteName = keyof typeof ROUTES;
export type ParamsOf<N extends RouteName> = ValuesOf<(typeof ROUTES)[N]['kinds']>;
/** The screens whose address has no parameter: the ones the navigation may offer. */
export type PlainRouteName = { [N in RouteName]: keyof ParamsOf<N> extends never ? N : never }[RouteName];

/** The section a screen belongs to: its right's, or the dashboards'. */
export const sectionOf = (route: Route): SectionName =>
  typeof route.access === 'object' ? route.access.right : 'dashboards';

/** Whether a signed-in person may open a screen: by their dashboard role, or by their right in a console section. */
export type MayOpen = (access: Role | RightAccess) => boolean;

/**
 * The navigation: each section with the screens of the table that have a label and that the person may open, in the
 * table's order; a section with none is left out, so a person without a right sees no entry for it.
 */
export function navigation(may: MayOpen): { section: SectionName; label: string; items: PlainRouteName[] }[] {
  const items = (Object.keys(ROUTES) as RouteName[]).filter((name): name is PlainRouteName => {
    const { nav, access } = ROUTES[name] as Route;
    return nav !== undefined && access !== 'public' && may(access);
  });
  return (Object.keys(SECTIONS) as SectionName[])
    .map((section) => ({
      section,
      label: SECTIONS[section],
      items: items.filter((name) => sectionOf(ROUTES[name] as Route) === section),
    }))
    .filter((s) => s.items.length > 0);
}

/** The address of a screen, with its parameters filled in and an optional query string (`?edit=1`). */
export function hrefTo<N extends RouteName>(name: N, params?: ParamsOf<N>, search?: Record<string, string>): string {
  const values = (params ?? {}) as Record<string, string | number>;
  const path = ROUTES[name].path.replace(/:([A-Za-z]+)/g, (_, key: string) => encodeURIComponent(String(values[key])));
  const query = search ? new URLSearchParams(search).toString() : '';
  return query ? `${path}?${query}` : path;
}

export interface Match {
  name: RouteName;
  route: Route;
  params: Record<string, string | number>;
}

/** The screen an address opens, with its parameters read (ids as numbers); undefined: no screen has that address. */
export function matchRoute(pathname: string): Match | undefined {
  for (const [name, route] of Object.entries(ROUTES) as [RouteName, Route][]) {
    const m = route.pattern.exec(pathname);
    if (!m) continue;
    let decoded: string[];
    try {
      decoded = m.slice(1).map((v) => decodeURIComponent(v));
    } catch {
      continue;
    }
    const params = Object.fromEntries(
      route.names.map((key, i) => [key, route.params[key] === 'id' ? Number(decoded[i]) : decoded[i]!]),
    );
    return { name, route, params };
  }
  return undefined;
}
