import type { DashboardConfig } from '../config.ts';
import type { ProvisioningBundle } from './format.ts';
import { readOnlyUrl } from './readonly-role.ts';

export const PLATFORM_EVENTS_SOURCE = 'platform-events';
export const PLATFORM_AUDITS_SOURCE = 'platform-audits';

type PlatformSettings = Pick<
  DashboardConfig,
  'platformIngestUrl' | 'ingestDatabaseUrl' | 'platformAuditUrl' | 'auditDatabaseUrl' | 'databaseUrl'
>;

export interface PlatformPart {
  /** The data source's slug. */
  source: string;
  /** The URL to connect with, or undefined with the reason it is not available. */
  url: string | undefined;
  reason?: string;
  /** The operator's own URL for it (DASHBOARD_PLATFORM_*_URL): used as given, no role is made. */
  dedicated: boolean;
}

const embedded = (service: string) =>
  `the ${service} service keeps its data in embedded storage (no DATABASE_URL or ${service.toUpperCase()}_DATABASE_URL), which only its own process can open; run the services on a PostgreSQL server to get this data source`;

/**
 * Where the ingest and audit services keep their tables: the same URL resolution those services use
 * (their own variable, else DATABASE_URL), unless a dedicated read-only URL is configured.
 */
export function platformParts(config: PlatformSettings): { events: PlatformPart; audits: PlatformPart } {
  const ingest = config.platformIngestUrl ?? config.ingestDatabaseUrl ?? config.databaseUrl;
  const audit = config.platformAuditUrl ?? config.auditDatabaseUrl ?? config.databaseUrl;
  return {
    events: {
      source: PLATFORM_EVENTS_SOURCE,
      url: ingest,
      dedicated: Boolean(config.platformIngestUrl),
      ...(ingest ? {} : { reason: embedded('ingest') }),
    },
    audits: {
      source: PLATFORM_AUDITS_SOURCE,
      url: audit,
      dedicated: Boolean(config.platformAuditUrl),
      ...(audit ? {} : { reason: embedded('audit') }),
    },
  };
}

const grid = { type: 'grid', columns: 12, rowHeight: 30 };

// The SQL reads the services' tables by their schema (`ingest.events`, `audit.jobs`): see src/ingest/migrations and
// src/audit/migrations. An event's fields are the keys of `body` as received (`api.path`, `error.type`, ...).
export const EVENTS_PER_TYPE = `SELECT event_type, count(*)::int AS events
FROM ingest.events
WHERE event_ts >= now() - interval '30 days'
GROUP BY event_type
ORDER BY events DESC, event_type`;

// One column per kind of event, so a chart draws one line each (the web app's charts take value columns, not a
// series column).
export const EVENTS_PER_DAY = `SELECT date_trunc('day', event_ts)::date AS day, count(*)::int AS total,
  (count(*) FILTER (WHERE event_type LIKE 'page.%'))::int AS pages,
  (count(*) FILTER (WHERE event_type LIKE 'ui.%'))::int AS interactions,
  (count(*) FILTER (WHERE event_type LIKE 'api.%'))::int AS api,
  (count(*) FILTER (WHERE event_type = 'error'))::int AS errors
FROM ingest.events
WHERE event_ts >= now() - interval '30 days'
GROUP BY 1
ORDER BY 1`;

export const ERROR_EVENTS = `SELECT event_ts AS time, project_id, session_id, body->>'error.type' AS error_type,
  body->>'error.message' AS message, body->>'page.path' AS page
FROM ingest.events
WHERE event_type = 'error'
ORDER BY event_ts DESC
LIMIT 100`;

export const SLOWEST_API_PATHS = `SELECT body->>'api.method' AS method, body->>'api.path' AS path, count(*)::int AS requests,
  round(avg((body->>'api.duration_ms')::numeric))::int AS avg_ms,
  (percentile_cont(0.95) WITHIN GROUP (ORDER BY (body->>'api.duration_ms')::numeric))::float8 AS p95_ms,
  max((body->>'api.duration_ms')::numeric)::int AS max_ms
FROM ingest.events
WHERE event_type IN ('api.response', 'api.request') AND json_typeof(body->'api.duration_ms') = 'number'
  AND body->>'api.path' IS NOT NULL AND event_ts >= now() - interval '30 days'
GROUP BY 1, 2
ORDER BY p95_ms DESC, path
LIMIT 20`;

const SITE = `substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)')`;
const COMPLETED = `status = 'completed' AND jsonb_typeof(result->'score') = 'number' AND finished_at IS NOT NULL`;

export const AUDIT_SCORES = `SELECT date_trunc('day', finished_at)::date AS day, ${SITE} AS site,
  round(avg((result->>'score')::numeric), 1)::float8 AS score, count(*)::int AS audits
FROM audit.jobs
WHERE ${COMPLETED}
GROUP BY 1, 2
ORDER BY 1 DESC, 2`;

export const AUDIT_SCORE_TREND = `SELECT date_trunc('day', finished_at)::date AS day, round(avg((result->>'score')::numeric), 1)::float8 AS score
FROM audit.jobs
WHERE ${COMPLETED}
GROUP BY 1
ORDER BY 1`;

export const AUDIT_LATEST_PER_SITE = `SELECT DISTINCT ON (site) ${SITE} AS site, (result->>'score')::float8 AS score, finished_at AS audited_at
FROM audit.jobs
WHERE ${COMPLETED}
ORDER BY site, finished_at DESC`;

/**
 * The URL a new platform source connects with: the operator's dedicated one, or a role that may read only the
 * source's tables (made now, see readonly-role.ts). A source that exists already keeps its URL, so none is made.
 */
async function urlFor(
  part: PlatformPart,
  exists: boolean,
  grant: { schema: string; tables: string[]; service: string },
  tenantId: number,
): Promise<{ url: string } | { reason: string; notYet?: boolean }> {
  if (!part.url) return { reason: part.reason! };
  if (exists || part.dedicated) return { url: part.url };
  return readOnlyUrl(part.url, { ...grant, part: grant.service === 'ingest' ? 'events' : 'audits', tenantId });
}

/**
 * The platform's starter data for a tenant: read-only data sources over the ingest and audit tables and a
 * dashboard for each. Only the parts whose service is on PostgreSQL (and whose tables exist) are included.
 */
export async function platformBundle(
  config: PlatformSettings,
  tenantId: number,
  existing: ReadonlySet<string>,
): Promise<{ bundle: ProvisioningBundle; skipped: string[]; notYet: boolean }> {
  const parts = platformParts(config);
  const bundle: Required<Pick<ProvisioningBundle, 'dataSources' | 'dashboards'>> = { dataSources: [], dashboards: [] };
  const skipped: string[] = [];
  const ev = await urlFor(
    parts.events,
    existing.has(PLATFORM_EVENTS_SOURCE),
    { schema: 'ingest', tables: ['events', 'projects'], service: 'ingest' },
    tenantId,
  );
  const au = await urlFor(
    parts.audits,
    existing.has(PLATFORM_AUDITS_SOURCE),
    { schema: 'audit', tables: ['jobs'], service: 'audit' },
    tenantId,
  );
  const events = {
    source: PLATFORM_EVENTS_SOURCE,
    url: 'url' in ev ? ev.url : undefined,
    reason: 'reason' in ev ? ev.reason : undefined,
  };
  const audits = {
    source: PLATFORM_AUDITS_SOURCE,
    url: 'url' in au ? au.url : undefined,
    reason: 'reason' in au ? au.reason : undefined,
  };
  // A service on PostgreSQL whose tables are not made yet (it starts after the dashboard): worth trying again.
  const notYet = ('notYet' in ev && ev.notYet === true) || ('notYet' in au && au.notYet === true);
  if (events.url) {
    bundle.dataSources.push({
      slug: events.source,
      name: 'Platform events (ingest)',
      type: 'postgres',
      connectionUrl: events.url,
      readOnly: true,
      maxConnections: 5,
    });
    bundle.dashboards.push({
      slug: 'platform-events',
      title: 'Platform events',
      description:
        'Events received by the ingest service: per type and per day over 30 days, the latest errors, the slowest API paths.',
      definition: {
        layout: grid,
        dataSources: [{ slug: events.source }],
        widgets: [
          {
            id: 'per-type',
            type: 'bar',
            title: 'Events per type (30 days)',
            position: { x: 0, y: 0, w: 6, h: 8 },
            dataSource: events.source,
            query: EVENTS_PER_TYPE,
            options: { x: 'event_type', y: ['events'] },
          },
          {
            id: 'per-day',
            type: 'line',
            title: 'Events per day',
            position: { x: 6, y: 0, w: 6, h: 8 },
            dataSource: events.source,
            query: EVENTS_PER_DAY,
            options: { x: 'day', y: ['total', 'pages', 'interactions', 'api', 'errors'] },
          },
          {
            id: 'errors',
            type: 'table',
            title: 'Latest error events',
            position: { x: 0, y: 8, w: 12, h: 8 },
            dataSource: events.source,
            query: ERROR_EVENTS,
          },
          {
            id: 'slow-paths',
            type: 'table',
            title: 'Slowest API paths (p95, 30 days)',
            position: { x: 0, y: 16, w: 12, h: 8 },
            dataSource: events.source,
            query: SLOWEST_API_PATHS,
          },
        ],
      },
    });
  } else skipped.push(`${events.source}: ${events.reason}`);
  if (audits.url) {
    bundle.dataSources.push({
      slug: audits.source,
      name: 'Platform audits (audit)',
      type: 'postgres',
      connectionUrl: audits.url,
      readOnly: true,
      maxConnections: 5,
    });
    bundle.dashboards.push({
      slug: 'platform-audits',
      title: 'Accessibility audits',
      description:
        "Scores of completed audits (0–100, the audit service's score): the trend, each site's latest, and per site and day.",
      definition: {
        layout: grid,
        dataSources: [{ slug: audits.source }],
        widgets: [
          {
            id: 'trend',
            type: 'line',
            title: 'Average score over time',
            position: { x: 0, y: 0, w: 6, h: 8 },
            dataSource: audits.source,
            query: AUDIT_SCORE_TREND,
            options: { x: 'day', y: ['score'] },
          },
          {
            id: 'latest',
            type: 'bar',
            title: 'Latest score per site',
            position: { x: 6, y: 0, w: 6, h: 8 },
            dataSource: audits.source,
            query: AUDIT_LATEST_PER_SITE,
            options: { x: 'site', y: ['score'] },
          },
          {
            id: 'scores',
            type: 'table',
            title: 'Score per site and day',
            position: { x: 0, y: 8, w: 12, h: 8 },
            dataSource: audits.source,
            query: AUDIT_SCORES,
          },
        ],
      },
    });
  } else skipped.push(`${audits.source}: ${audits.reason}`);
  return { bundle, skipped, notYet };
}
