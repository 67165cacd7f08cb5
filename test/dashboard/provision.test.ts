import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { AUDIT_MIGRATIONS } from '../../src/audit/app.ts';
import { buildDashboardApp } from '../../src/dashboard/app.ts';
import { loadDashboardConfig } from '../../src/dashboard/config.ts';
import { dashboardCommand } from '../../src/dashboard/cli.ts';
import { platformParts } from '../../src/dashboard/provision/platform.ts';
import { firstRunSettled } from '../../src/dashboard/provision/run.ts';
import { openServiceDatabase } from '../../src/kit/service-config.ts';
import { StartupError } from '../../src/kit/start-errors.ts';
import { makeEvent, startIngest, type IngestHarness } from '../ingest/helpers.ts';
import { startDashboard, type DashboardServer } from './harness.ts';
import { tempDir } from '../support/tmp.ts';
import { freshPostgres, TEST_POSTGRES_URL } from '../support/postgres.ts';
import { INGEST_MIGRATIONS } from '../../src/ingest/app.ts';
import { readOnlyRoleName } from '../../src/dashboard/provision/readonly-role.ts';

/** Login roles are the server's, not the database's: the read-only roles provisioning made go when the test ends. */
async function dropReadOnlyRoles(databaseUrl: string): Promise<void> {
  const prefix = readOnlyRoleName(new URL(databaseUrl).pathname.slice(1), 0, '').replace(/_0_$/, '_');
  const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await c.connect();
  try {
    const { rows } = await c.query<{ rolname: string }>(`SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)`, [
      prefix,
    ]);
    for (const r of rows) await c.query(`DROP ROLE ${c.escapeIdentifier(r.rolname)}`);
  } finally {
    await c.end();
  }
}

/** The ingest and audit schemas in a database, as those services' first start makes them. */
async function migrateIngestAndAudit(url: string): Promise<void> {
  const data = tempDir('prov-migrate-');
  try {
    for (const [service, migrations] of [
      ['ingest', INGEST_MIGRATIONS],
      ['audit', AUDIT_MIGRATIONS],
    ] as const) {
      const db = await openServiceDatabase(
        service,
        { databaseUrl: url, serviceDatabaseUrl: undefined, dataDir: data.path },
        { migrations },
      );
      await db.close();
    }
  } finally {
    data.remove();
  }
}

/**
 * Provisioning against real PostgreSQL with the ingest and audit schemas migrated in the same database, as
 * `platform start` with DATABASE_URL runs them. Events arrive through the ingest service itself; audit results
 * are written as rows of `audit.jobs` (a real audit needs Chromium and a site; the row is the audit worker's
 * shape, src/audit/migrations/001_keys_jobs.sql and docs/audit.md "The result").
 */
describe('provisioning: platform data on the first run, files at start, the provision command', () => {
  let ingest: IngestHarness;
  let s: DashboardServer;
  let sql: pg.Client;
  let owner: { headers: Record<string, string> };
  const dirs: { path: string; remove(): void }[] = [];
  const ownerEmail = 'olga@acme.example';

  before(async () => {
    ingest = await startIngest({}, 'provingest');
    const url = ingest.database.url;
    const data = tempDir('prov-audit-');
    dirs.push(data);
    const audit = await openServiceDatabase(
      'audit',
      { databaseUrl: url, serviceDatabaseUrl: undefined, dataDir: data.path },
      { migrations: AUDIT_MIGRATIONS },
    );
    await audit.close();
    s = await startDashboard('prov', { DATABASE_URL: url, DASHBOARD_DATABASE_URL: url });
    sql = ingest.sql;
  });
  after(async () => {
    await s?.close();
    await ingest?.close();
    if (ingest) await dropReadOnlyRoles(ingest.database.url);
    for (const d of dirs) d.remove();
    delete process.env.PROVTEST_WAREHOUSE_URL;
  });

  const provisionCli = (args: string[], config = s.config) => {
    const out: string[] = [];
    const err: string[] = [];
    return dashboardCommand(['provision', ...args], config, { out: (l) => out.push(l), err: (l) => err.push(l) }).then(
      (code) => ({ code, out, err }),
    );
  };
  const run = async (dataSourceId: number, query: string) => {
    const r = await s.request('POST', '/api/v1/query', { as: owner, body: { dataSourceId, query } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { columns: string[]; rows: Record<string, unknown>[]; rowCount: number };
  };
  const dashboardBySlug = async (slug: string) => {
    const list = await s.request('GET', `/api/v1/dashboards?search=&perPage=100`, { as: owner });
    const item = list.body.data.find((d: { slug: string }) => d.slug === slug);
    assert.ok(item, `dashboard ${slug} exists`);
    return (await s.request('GET', `/api/v1/dashboards/${item.id}`, { as: owner })).body;
  };
  const counts = async () =>
    (
      await sql.query(`SELECT (SELECT count(*) FROM dashboard.data_sources)::int AS ds, (SELECT count(*) FROM dashboard.dashboards)::int AS d,
    (SELECT count(*) FROM dashboard.dashboard_versions)::int AS v, (SELECT count(*) FROM dashboard.audit_log)::int AS a`)
    ).rows[0];

  test('the first run adds read-only data sources over ingest and audit and starter dashboards whose queries return rows', async () => {
    const setup = await s.request('POST', '/api/v1/setup', {
      body: { tenantName: 'Acme', tenantSlug: 'acme', email: ownerEmail, name: 'Olga' },
    });
    assert.equal(setup.status, 201);
    owner = { headers: { authorization: `Bearer ${(await s.token('acme', ownerEmail)).accessToken}` } };

    const sources = (await s.request('GET', '/api/v1/datasources', { as: owner })).body.dataSources as {
      id: number;
      slug: string;
      readOnly: boolean;
    }[];
    assert.deepEqual(sources.map((x) => x.slug).sort(), ['platform-audits', 'platform-events']);
    assert.ok(
      sources.every((x) => x.readOnly),
      'platform sources are read-only',
    );
    // They connect as roles that may read only their tables, not as the platform's own database user.
    const byslug = new Map(sources.map((x) => [x.slug, x.id]));
    for (const [slug, allowed, refused] of [
      [
        'platform-events',
        'SELECT count(*) FROM ingest.events',
        [
          'SELECT count(*) FROM ingest.api_keys',
          'SELECT count(*) FROM dashboard.users',
          'SELECT count(*) FROM audit.jobs',
        ],
      ],
      [
        'platform-audits',
        'SELECT count(*) FROM audit.jobs',
        [
          'SELECT count(*) FROM audit.api_keys',
          'SELECT count(*) FROM dashboard.data_sources',
          'SELECT count(*) FROM ingest.events',
        ],
      ],
    ] as const) {
      assert.equal(
        (
          await s.request('POST', '/api/v1/query', {
            as: owner,
            body: { dataSourceId: byslug.get(slug), query: allowed },
          })
        ).status,
        200,
        `${slug}: ${allowed}`,
      );
      for (const q of refused) {
        const r = await s.request('POST', '/api/v1/query', {
          as: owner,
          body: { dataSourceId: byslug.get(slug), query: q },
        });
        assert.equal(r.status, 400, `${slug}: ${q}`);
        assert.match(r.body.error.message, /permission denied/, `${slug}: ${q}`);
      }
    }
    const sealed = await sql.query(`SELECT connection_url_sealed AS s FROM dashboard.data_sources`);
    for (const r of sealed.rows) assert.ok(!String(r.s).includes('postgres://'), 'the URL is sealed at rest');

    // Data arrives: events through the ingest service, audit results as the audit worker writes them.
    const { projectId, key } = await ingest.project();
    const now = new Date().toISOString();
    const events = [
      ...Array.from({ length: 3 }, () => makeEvent(projectId, { 'event.type': 'page.view', 'event.timestamp': now })),
      makeEvent(projectId, {
        'event.type': 'error',
        'event.timestamp': now,
        'error.type': 'TypeError',
        'error.message': 'x is undefined',
      }),
      makeEvent(projectId, {
        'event.type': 'api.response',
        'event.timestamp': now,
        'api.method': 'GET',
        'api.path': '/api/slow',
        'api.status_code': 200,
        'api.duration_ms': 900,
      }),
      makeEvent(projectId, {
        'event.type': 'api.response',
        'event.timestamp': now,
        'api.method': 'GET',
        'api.path': '/api/slow',
        'api.status_code': 200,
        'api.duration_ms': 700,
      }),
      makeEvent(projectId, {
        'event.type': 'api.response',
        'event.timestamp': now,
        'api.method': 'POST',
        'api.path': '/api/fast',
        'api.status_code': 201,
        'api.duration_ms': 20,
      }),
    ];
    const posted = await ingest.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ events }),
    });
    assert.equal(posted.statusCode, 202, posted.body);
    for (const [site, score, daysAgo] of [
      ['https://shop.example', 80, 1],
      ['https://shop.example', 90, 0],
      ['https://blog.example', 65, 0],
    ] as const) {
      await sql.query(
        `INSERT INTO audit.jobs (id, owner, url, config, status, result, created_at, started_at, finished_at)
         VALUES ($1, 'key:test', $2, '{}', 'completed', $3, now() - make_interval(days => $4), now() - make_interval(days => $4), now() - make_interval(days => $4))`,
        [randomUUID(), `${site}/`, JSON.stringify({ url: `${site}/`, score }), daysAgo],
      );
    }

    // Every widget of the starter dashboards runs on its data source and returns rows.
    const eventsBoard = await dashboardBySlug('platform-events');
    const auditsBoard = await dashboardBySlug('platform-audits');
    const byId = new Map<string, { rows: Record<string, unknown>[] }>();
    for (const w of [...eventsBoard.definition.widgets, ...auditsBoard.definition.widgets]) {
      const result = await run(w.dataSourceId, w.query);
      assert.ok(result.rowCount > 0, `widget ${w.id} returns rows`);
      byId.set(w.id, result);
    }
    assert.deepEqual(
      byId.get('per-type')!.rows.find((r) => r.event_type === 'page.view'),
      { event_type: 'page.view', events: 3 },
    );
    assert.deepEqual(
      byId.get('per-day')!.rows.map(({ day: _d, ...counts }) => counts),
      [{ total: 7, pages: 3, interactions: 0, api: 3, errors: 1 }],
    );
    assert.deepEqual(
      byId.get('errors')!.rows.map((r) => [r.error_type, r.message]),
      [['TypeError', 'x is undefined']],
    );
    const slow = byId.get('slow-paths')!.rows;
    assert.deepEqual(
      slow.map((r) => [r.method, r.path, r.requests, r.avg_ms, r.max_ms]),
      [
        ['GET', '/api/slow', 2, 800, 900],
        ['POST', '/api/fast', 1, 20, 20],
      ],
    );
    const scores = byId.get('scores')!.rows;
    assert.deepEqual(scores.map((r) => [r.site, r.score]).sort(), [
      ['blog.example', 65],
      ['shop.example', 80],
      ['shop.example', 90],
    ]);
    assert.deepEqual(
      byId.get('trend')!.rows.map((r) => r.score),
      [80, 77.5],
      'yesterday 80; today (90 + 65) / 2',
    );
    assert.deepEqual(
      byId.get('latest')!.rows.map((r) => [r.site, r.score]),
      [
        ['blog.example', 65],
        ['shop.example', 90],
      ],
    );

    // Read-only: the platform source refuses a write even from an editor of SQL.
    const write = await s.request('POST', '/api/v1/query', {
      as: owner,
      body: { dataSourceId: eventsBoard.definition.widgets[0].dataSourceId, query: 'DELETE FROM ingest.events' },
    });
    assert.equal(write.status, 400);
    assert.equal(Number((await sql.query('SELECT count(*) FROM ingest.events')).rows[0].count), 7);
  });

  test('`platform dashboard provision` twice changes nothing, and says so (--json too)', async () => {
    const before = await counts();
    const first = await provisionCli([]);
    assert.equal(first.code, 0, first.err.join('\n'));
    assert.deepEqual(first.out.sort(), [
      'dashboard platform-audits (platform, acme): unchanged',
      'dashboard platform-events (platform, acme): unchanged',
      'data source platform-audits (platform, acme): unchanged',
      'data source platform-events (platform, acme): unchanged',
    ]);
    const json = await provisionCli(['--json']);
    assert.equal(json.code, 0);
    const doc = JSON.parse(json.out.join('\n'));
    assert.equal(doc.tenant.slug, 'acme');
    assert.ok(doc.platform.report.dashboards.every((d: { outcome: string }) => d.outcome === 'unchanged'));
    assert.deepEqual(await counts(), before, 'no row added, no version, no audit record');

    // An admin's change to a starter dashboard survives: platform data is only added where missing.
    const board = await dashboardBySlug('platform-audits');
    const put = await s.request('PUT', `/api/v1/dashboards/${board.id}`, { as: owner, body: { title: 'Our audits' } });
    assert.equal(put.status, 200);
    assert.equal((await provisionCli([])).code, 0);
    assert.equal((await dashboardBySlug('platform-audits')).title, 'Our audits');

    const help = await provisionCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(
      help.out.join('\n'),
      /usage: platform dashboard provision \[--tenant SLUG\] \[--dir DIR\] \[--no-platform\] \[--json\]/,
    );
    const unknown = await provisionCli(['--tenant', 'nobody']);
    assert.equal(unknown.code, 1);
    assert.deepEqual(unknown.err, ['platform dashboard provision: --tenant: no tenant "nobody"']);
  });

  test('on embedded storage the platform data is not available, and the command says why', async () => {
    const parts = platformParts({
      databaseUrl: undefined,
      ingestDatabaseUrl: undefined,
      auditDatabaseUrl: undefined,
      platformIngestUrl: undefined,
      platformAuditUrl: undefined,
    });
    assert.equal(parts.events.url, undefined);
    assert.match(parts.events.reason!, /embedded storage/);
    // The dashboard on PostgreSQL, ingest and audit embedded: nothing to point a data source at.
    const config = loadDashboardConfig({ ...s.env, DATABASE_URL: undefined });
    const r = await provisionCli([], config);
    assert.equal(r.code, 1);
    assert.equal(r.err.length, 1);
    assert.match(
      r.err[0]!,
      /^platform dashboard provision: the platform data is not available: platform-events: the ingest service keeps its data in embedded storage/,
    );
  });

  const folder = (files: Record<string, string>) => {
    const d = tempDir('prov-files-');
    dirs.push(d);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(d.path, name), text);
    return d.path;
  };
  const startWith = async (dir: string) => {
    const app = await buildDashboardApp(loadDashboardConfig({ ...s.env, DASHBOARD_PROVISIONING_DIR: dir }));
    await app.close();
  };
  const warehouseYaml = (title: string) => `# kept in version control: the URL comes from the environment
tenant: acme
dataSources:
  - slug: warehouse
    name: Warehouse
    type: postgres
    connectionUrl: \${PROVTEST_WAREHOUSE_URL}
    queryTimeoutSeconds: 10
dashboards:
  - slug: sales
    title: ${title}
    definition:
      layout: {type: grid, columns: 12, rowHeight: 30}
      widgets:
        - id: count
          type: stat
          title: Events stored
          position: {x: 0, y: 0, w: 4, h: 4}
          dataSource: warehouse
          query: SELECT count(*)::int AS n FROM ingest.events
        - id: notes
          type: text
          position: {x: 4, y: 0, w: 8, h: 4}
          options: {markdown: "**Provisioned** from a file"}
`;

  test('files in DASHBOARD_PROVISIONING_DIR are applied at start, sealed, referenced by slug, and applied again only when they differ', async () => {
    process.env.PROVTEST_WAREHOUSE_URL = ingest.database.url;
    const dir = folder({
      '10-warehouse.yaml': warehouseYaml('Sales'),
      '20-extra.json': JSON.stringify({
        dashboards: [
          {
            slug: 'from-json',
            title: 'From JSON',
            definition: { layout: { type: 'grid', columns: 12, rowHeight: 30 }, widgets: [] },
          },
        ],
      }),
      'README.md': 'not a provisioning file: ignored',
    });
    await startWith(dir);
    const sales = await dashboardBySlug('sales');
    assert.equal(sales.title, 'Sales');
    assert.equal(sales.version, 1);
    const ds = (await s.request('GET', '/api/v1/datasources', { as: owner })).body.dataSources.find(
      (x: { slug: string }) => x.slug === 'warehouse',
    );
    assert.equal(ds.queryTimeoutSeconds, 10);
    assert.equal(ds.readOnly, true, 'read-only unless the file says otherwise');
    const detail = (await s.request('GET', `/api/v1/datasources/${ds.id}`, { as: owner })).body;
    assert.equal(detail.hasConnectionUrl, true);
    assert.equal(detail.connectionUrlEnv, null);
    const stored = (
      await sql.query(`SELECT connection_url_sealed AS s FROM dashboard.data_sources WHERE id = $1`, [ds.id])
    ).rows[0].s as string;
    assert.ok(!stored.includes(ingest.database.url) && !stored.includes('postgres'), 'sealed, not in clear');
    assert.deepEqual(sales.definition.dataSources, [{ id: ds.id }], 'the slug became the id');
    const count = await run(ds.id, sales.definition.widgets[0].query);
    assert.deepEqual(count.rows, [{ n: 7 }]);
    assert.equal((await dashboardBySlug('from-json')).title, 'From JSON');

    const before = await counts();
    await startWith(dir);
    assert.deepEqual(await counts(), before, 'a second start with the same files changes nothing');

    writeFileSync(join(dir, '10-warehouse.yaml'), warehouseYaml('Sales and more'));
    await startWith(dir);
    const changed = await dashboardBySlug('sales');
    assert.equal(changed.title, 'Sales and more');
    assert.equal(changed.version, 2, 'a changed file makes one new version');
    const log = await s.request('GET', '/api/v1/audit?action=dashboard.update', { as: owner });
    assert.equal(log.body.items[0].details.origin, '10-warehouse.yaml');
    assert.equal(log.body.items[0].userId, null);
  });

  test('a bad file stops the start with one line naming the file and the field; nothing of it is applied', async () => {
    const layout = '{type: grid, columns: 12, rowHeight: 30}';
    const cases: [string, string, RegExp][] = [
      [
        'broken.yaml',
        'dashboards: [unclosed',
        /^provisioning file broken\.yaml: is not valid YAML \(line \d+, column \d+\)/,
      ],
      [
        'typo.yaml',
        `dashboards:\n  - slug: a\n    title: A\n    colour: red\n    definition: {layout: ${layout}, widgets: []}\n`,
        /^provisioning file typo\.yaml: dashboards\[0\]\.colour: unknown field$/,
      ],
      [
        'size.yaml',
        `dashboards:\n  - slug: a\n    title: A\n    definition:\n      layout: ${layout}\n      widgets: [{id: w, type: bar, position: {x: 0, y: 0, w: 0, h: 2}}]\n`,
        /^provisioning file size\.yaml: dashboards\[0\]\.definition\.widgets\[0\]\.position\.w: must be >= 1$/,
      ],
      [
        'wide.yaml',
        `dashboards:\n  - slug: a\n    title: A\n    definition:\n      layout: ${layout}\n      widgets: [{id: w, type: bar, position: {x: 8, y: 0, w: 6, h: 2}}]\n`,
        /^provisioning file wide\.yaml: dashboards\[0\]: definition\.widgets\[0\]\.position: x \+ w \(14\) exceeds the layout's 12 columns$/,
      ],
      [
        'missing-env.yaml',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own `${VAR}` placeholder, which the provisioner expands
        'dataSources:\n  - {slug: w, name: W, type: postgres, connectionUrl: "postgres://ro:${PROVTEST_NOT_SET}@db/x"}\n',
        /^provisioning file missing-env\.yaml: dataSources\[0\]\.connectionUrl: environment variable PROVTEST_NOT_SET is not set$/,
      ],
      [
        'scheme.json',
        JSON.stringify({ dataSources: [{ slug: 'w', name: 'W', type: 'mysql', connectionUrl: 'postgres://db/x' }] }),
        /^provisioning file scheme\.json: dataSources\[0\]\.connectionUrl: must start with mysql:\/\/ or mariadb:\/\/ for a mysql data source$/,
      ],
      [
        'ref.yaml',
        `dashboards:\n  - slug: a\n    title: A\n    definition:\n      layout: ${layout}\n      widgets: [{id: w, type: table, position: {x: 0, y: 0, w: 2, h: 2}, dataSource: nowhere, query: SELECT 1}]\n`,
        /^provisioning file ref\.yaml: dashboards\[0\]\.definition\.widgets\[0\]\.dataSource: no data source "nowhere" in the tenant or the file$/,
      ],
      [
        'tenant.yaml',
        'tenant: nobody\ndashboards: []\n',
        /^provisioning file tenant\.yaml: tenant: no tenant "nobody"$/,
      ],
      ['not-json.json', '{"dashboards": [', /^provisioning file not-json\.json: is not valid JSON/],
      [
        'list.yaml',
        '- just a list\n',
        /^provisioning file list\.yaml: must be an object with `dataSources` and\/or `dashboards`$/,
      ],
    ];
    const before = await counts();
    for (const [name, text, expected] of cases) {
      // A good file beside the bad one: the start applies neither (files are read and checked before anything is written).
      const dir = folder({
        '00-good.yaml': `tenant: acme\ndashboards:\n  - {slug: good-${name.replace(/\W/g, '')}, title: Good, definition: {layout: ${layout}, widgets: []}}\n`,
        [name]: text,
      });
      const err = await startWith(dir).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof StartupError, `${name}: a StartupError, got ${String(err)}`);
      assert.match(err.message, expected, name);
      assert.ok(!err.message.includes('\n'), `${name}: one line`);
      const cli = await provisionCli(['--no-platform', '--dir', dir]);
      assert.equal(cli.code, 1, name);
      assert.equal(cli.err.length, 1, name);
      assert.match(cli.err[0]!, new RegExp(`^platform dashboard provision: ${name.replace('.', '\\.')}: `), name);
    }
    assert.deepEqual(await counts(), before, 'no good file beside a bad one was applied');
  });
});

describe('provisioning on the other first runs', () => {
  test('DASHBOARD_BOOTSTRAP_OWNER: the first tenant gets the platform data at the start that makes it', async () => {
    const db = await freshPostgres('provboot');
    await migrateIngestAndAudit(db.url);
    const s = await startDashboard('provboot', {
      DATABASE_URL: db.url,
      DASHBOARD_DATABASE_URL: db.url,
      DASHBOARD_BOOTSTRAP_OWNER: 'boss@corp.example',
    });
    try {
      const boss = {
        headers: { authorization: `Bearer ${(await s.token('default', 'boss@corp.example')).accessToken}` },
      };
      const sources = (await s.request('GET', '/api/v1/datasources', { as: boss })).body.dataSources
        .map((x: { slug: string }) => x.slug)
        .sort();
      assert.deepEqual(sources, ['platform-audits', 'platform-events']);
      const boards = (await s.request('GET', '/api/v1/dashboards?sort=title', { as: boss })).body.data.map(
        (d: { slug: string }) => d.slug,
      );
      assert.deepEqual(boards, ['platform-audits', 'platform-events']);
    } finally {
      await s.close();
      await db.drop();
      await dropReadOnlyRoles(db.url);
    }
  });

  test('DASHBOARD_BOOTSTRAP_OWNER on a fresh database: the platform data follows once ingest and audit have made their tables', async () => {
    const db = await freshPostgres('provlate');
    // As `platform start` does it: the dashboard starts (and makes the first owner) before audit and ingest migrate.
    const s = await startDashboard('provlate', {
      DATABASE_URL: db.url,
      DASHBOARD_DATABASE_URL: db.url,
      DASHBOARD_BOOTSTRAP_OWNER: 'boss@corp.example',
    });
    try {
      const boss = {
        headers: { authorization: `Bearer ${(await s.token('default', 'boss@corp.example')).accessToken}` },
      };
      assert.deepEqual(
        (await s.request('GET', '/api/v1/datasources', { as: boss })).body.dataSources,
        [],
        'nothing yet: no tables to grant',
      );
      await migrateIngestAndAudit(db.url);
      await firstRunSettled(s.app);
      const sources = (await s.request('GET', '/api/v1/datasources', { as: boss })).body.dataSources
        .map((x: { slug: string }) => x.slug)
        .sort();
      assert.deepEqual(sources, ['platform-audits', 'platform-events']);
    } finally {
      await s.close();
      await db.drop();
      await dropReadOnlyRoles(db.url);
    }
  });

  test('DASHBOARD_PLATFORM_DATA=false and files without a tenant: nothing at start, the files at the first owner', async () => {
    const db = await freshPostgres('provwait');
    const dir = tempDir('prov-wait-');
    process.env.DASHBOARD_DS_PROVTEST = db.url;
    writeFileSync(
      join(dir.path, 'ops.yml'),
      `dataSources:
  - {slug: ops, name: Operations, type: postgres, connectionUrlEnv: DASHBOARD_DS_PROVTEST}
dashboards:
  - slug: ops
    title: Operations
    definition:
      layout: {type: grid, columns: 12, rowHeight: 30}
      widgets: [{id: one, type: stat, position: {x: 0, y: 0, w: 3, h: 3}, dataSource: ops, query: SELECT 1 AS one}]
`,
    );
    const s = await startDashboard('provwait', {
      DATABASE_URL: db.url,
      DASHBOARD_DATABASE_URL: db.url,
      DASHBOARD_PLATFORM_DATA: 'false',
      DASHBOARD_PROVISIONING_DIR: dir.path,
    });
    try {
      const pg0 = new pg.Client({ connectionString: db.url });
      await pg0.connect();
      assert.equal(
        (await pg0.query('SELECT count(*)::int AS n FROM dashboard.dashboards')).rows[0].n,
        0,
        'no tenant yet: the file waits',
      );
      await pg0.end();
      const setup = await s.request('POST', '/api/v1/setup', {
        body: { tenantName: 'Corp', tenantSlug: 'corp', email: 'ann@corp.example', name: 'Ann' },
      });
      assert.equal(setup.status, 201);
      const ann = { headers: { authorization: `Bearer ${(await s.token('corp', 'ann@corp.example')).accessToken}` } };
      const sources = (await s.request('GET', '/api/v1/datasources', { as: ann })).body.dataSources;
      assert.deepEqual(
        sources.map((x: { slug: string }) => x.slug),
        ['ops'],
        "the file's source, no platform data",
      );
      const detail = (await s.request('GET', `/api/v1/datasources/${sources[0].id}`, { as: ann })).body;
      assert.equal(detail.connectionUrlEnv, 'DASHBOARD_DS_PROVTEST');
      assert.equal(detail.hasConnectionUrl, false, 'named, not stored');
      const list = (await s.request('GET', '/api/v1/dashboards', { as: ann })).body.data;
      assert.deepEqual(
        list.map((d: { slug: string }) => d.slug),
        ['ops'],
      );
      const board = (await s.request('GET', `/api/v1/dashboards/${list[0].id}`, { as: ann })).body;
      const r = await s.request('POST', '/api/v1/query', {
        as: ann,
        body: { dataSourceId: board.definition.widgets[0].dataSourceId, query: board.definition.widgets[0].query },
      });
      assert.deepEqual(r.body.rows, [{ one: 1 }]);
    } finally {
      await s.close();
      await db.drop();
      dir.remove();
      delete process.env.DASHBOARD_DS_PROVTEST;
    }
  });
});
