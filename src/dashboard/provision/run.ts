import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Queryable } from '../../kit/db.ts';
import type { DashboardConfig } from '../config.ts';
import { listDataSources } from '../datasources/store.ts';
import { SourceUrls } from '../sql/urls.ts';
import { applyBundle, type ApplyReport } from './apply.ts';
import { readProvisioningDir, type ProvisioningFileContent } from './files.ts';
import { ProvisioningError } from './format.ts';
import { platformBundle } from './platform.ts';

export interface ProvisionResult {
  /** The tenant the platform data (and files without `tenant`) went to; null when no tenant exists yet. */
  tenant: { id: number; slug: string } | null;
  platform: { applied: boolean; skipped: string[]; report?: ApplyReport; notYet?: boolean };
  files: { name: string; tenant: string; report: ApplyReport }[];
  /** Files left for later: no tenant exists yet for a file without `tenant`. */
  pending: string[];
}

/** Provisioning only seals URLs and checks `connectionUrlEnv` names: it never connects to a source. */
function provisioningUrls(config: DashboardConfig): SourceUrls {
  return new SourceUrls({ secretKey: config.secretKey, envPrefix: config.dataSourceEnvPrefix });
}

/** The installation's first tenant (the one the first owner made): the default home of platform data. */
async function tenantFor(
  db: Queryable,
  slug: string | undefined,
  origin: string,
  field: string,
): Promise<{ id: number; slug: string } | null> {
  const { rows } = slug
    ? await db.query<{ id: number; slug: string }>(`SELECT id::int AS id, slug FROM tenants WHERE slug = $1`, [slug])
    : await db.query<{ id: number; slug: string }>(`SELECT id::int AS id, slug FROM tenants ORDER BY id LIMIT 1`);
  if (slug && !rows[0]) throw new ProvisioningError(origin, field, `no tenant "${slug}"`);
  return rows[0] ?? null;
}

export interface ProvisionOptions {
  /** Add the platform's data sources and starter dashboards (kept as they are when they exist). */
  platform: boolean;
  /** Files already read and checked (readProvisioningDir), applied so the database matches them. */
  files: ProvisioningFileContent[];
  /** Where the platform data and files without `tenant` go; the first tenant when not given. */
  tenant?: string | undefined;
}

/** Applies the platform data and the files; safe to run any number of times (what matches is left alone). */
export async function provision(
  db: Database,
  config: DashboardConfig,
  options: ProvisionOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProvisionResult> {
  const urls = provisioningUrls(config);
  // One transaction for everything, under a lock every instance shares: two instances starting at once do
  // not both create a source, and one wrong file leaves the database as it was.
  return await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dashboard.provision'))`);
    const tenant = await tenantFor(tx, options.tenant, '--tenant', '');
    const result: ProvisionResult = { tenant, platform: { applied: false, skipped: [] }, files: [], pending: [] };
    if (options.platform && tenant) {
      const existing = new Set((await listDataSources(tx, tenant.id, {})).map((r) => r.slug));
      const { bundle, skipped, notYet } = await platformBundle(config, tenant.id, existing);
      result.platform.skipped = skipped;
      if (notYet) result.platform.notYet = true;
      if ((bundle.dataSources?.length ?? 0) > 0) {
        result.platform.report = await applyBundle(
          tx,
          urls,
          { tenantId: tenant.id, bundle, origin: 'platform', mode: 'keep' },
          env,
        );
        result.platform.applied = true;
      }
    }
    for (const file of options.files) {
      const target = file.bundle.tenant ? await tenantFor(tx, file.bundle.tenant, file.name, 'tenant') : tenant;
      if (!target) {
        result.pending.push(file.name);
        continue;
      }
      result.files.push({
        name: file.name,
        tenant: target.slug,
        report: await applyBundle(
          tx,
          urls,
          { tenantId: target.id, bundle: file.bundle, origin: file.name, mode: 'sync' },
          env,
        ),
      });
    }
    return result;
  });
}

/** The files of DASHBOARD_PROVISIONING_DIR, read and checked (a bad one throws a ProvisioningError naming it). */
export function configuredFiles(config: DashboardConfig): ProvisioningFileContent[] {
  return config.provisioningDir ? readProvisioningDir(config.provisioningDir) : [];
}

const summary = (r: ProvisionResult) => ({
  tenant: r.tenant?.slug,
  platform: r.platform.report,
  skipped: r.platform.skipped.length ? r.platform.skipped : undefined,
  files: r.files.map((f) => ({ name: f.name, tenant: f.tenant, ...f.report })),
  pending: r.pending.length ? r.pending : undefined,
});

/** At every start: the files, so the database matches them (a bad file stops the start, as a bad variable does). */
export async function provisionAtStart(db: Database, config: DashboardConfig, log: FastifyBaseLogger): Promise<void> {
  const files = configuredFiles(config);
  if (!files.length) return;
  const r = await provision(db, config, { platform: false, files });
  log.info(
    summary(r),
    r.pending.length ? 'provisioning applied; files without a tenant wait for the first owner' : 'provisioning applied',
  );
}

/**
 * The first run (the first owner was just made, by the first visitor or DASHBOARD_BOOTSTRAP_OWNER): the
 * platform data when DASHBOARD_PLATFORM_DATA allows, and the files that waited for a tenant. The owner
 * exists already, so a failure here is logged rather than undoing the first run. Answers whether the platform
 * data waits for another service's tables (see waitForPlatformTables).
 */
export async function provisionFirstRun(
  db: Database,
  config: DashboardConfig,
  log: FastifyBaseLogger,
  files = true,
): Promise<{ notYet: boolean }> {
  try {
    const r = await provision(db, config, {
      platform: config.platformData,
      files: files ? configuredFiles(config) : [],
    });
    // While waiting for another service's tables, each look is logged at debug only: one line every 2 s is noise.
    if (!files && r.platform.notYet) log.debug(summary(r), 'first run: still waiting for the ingest or audit tables');
    else log.info(summary(r), 'first run: provisioning applied');
    return { notYet: r.platform.notYet === true };
  } catch (err) {
    log.error({ err }, 'first run: provisioning failed; run `platform dashboard provision` to see why');
    return { notYet: false };
  }
}

const RETRY_MS = 2_000;
const RETRIES = 90;

/**
 * `platform start` builds the dashboard before the audit and ingest services, so on a fresh database their tables
 * do not exist yet when DASHBOARD_BOOTSTRAP_OWNER's first run happens at start. Another process's migration sends
 * no event here, so this looks again every 2 s for 3 minutes, then leaves it to `platform dashboard provision`.
 */
export async function waitForPlatformTables(
  db: Database,
  config: DashboardConfig,
  log: FastifyBaseLogger,
  signal: AbortSignal,
): Promise<void> {
  for (let i = 0; i < RETRIES; i++) {
    try {
      await sleep(RETRY_MS, undefined, { signal });
    } catch {
      return; // the service is stopping
    }
    if (!(await provisionFirstRun(db, config, log, false)).notYet) return;
  }
  log.warn('first run: the ingest or audit tables did not appear; run `platform dashboard provision` once they exist');
}

const pending = new WeakMap<object, Promise<void>>();

/** Remembers the background wait of an app, so a test (or a shutdown) can await its end. */
export function trackFirstRun(app: object, work: Promise<void>): void {
  pending.set(app, work);
}

/** Resolves when the app's first-run provisioning, including any wait for tables, is over. */
export function firstRunSettled(app: object): Promise<void> {
  return pending.get(app) ?? Promise.resolve();
}
