import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buildDashboardApp } from '../../src/dashboard/app.ts';
import { dashboardCommand } from '../../src/dashboard/cli.ts';
import { loadDashboardConfig } from '../../src/dashboard/config.ts';
import { tempDir } from '../support/tmp.ts';

test('on embedded PGlite (no DATABASE_URL) the migrations apply and dashboards list, search and count', async () => {
  const dir = tempDir('dashboard-pglite-');
  const config = loadDashboardConfig({
    DATA_DIR: dir.path,
    LOG_LEVEL: 'silent',
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
  });
  const out: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
  try {
    assert.equal(await dashboardCommand(['tenants', 'create', '--slug', 'solo', '--name', 'Solo'], config, io), 0);
    assert.equal(
      await dashboardCommand(
        ['users', 'create', '--tenant', 'solo', '--email', 'me@solo.example', '--name', 'Me', '--role', 'editor'],
        config,
        io,
      ),
      0,
    );
    assert.equal(await dashboardCommand(['token', '--tenant', 'solo', '--email', 'me@solo.example'], config, io), 0);
    const headers = {
      authorization: `Bearer ${JSON.parse(out.at(-1)!).accessToken}`,
      'content-type': 'application/json',
    };
    const app = await buildDashboardApp(config);
    try {
      const definition = { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] };
      for (const [slug, title] of [
        ['a', 'Alpha sales'],
        ['b', 'Beta costs'],
      ]) {
        const r = await app.inject({
          method: 'POST',
          url: '/api/v1/dashboards',
          headers,
          payload: { slug, title, definition },
        });
        assert.equal(r.statusCode, 201, r.body);
      }
      const list = await app.inject({ method: 'GET', url: '/api/v1/dashboards', headers });
      assert.equal(list.json().meta.total, 2);
      const search = await app.inject({ method: 'GET', url: '/api/v1/dashboards?search=SALES', headers });
      assert.deepEqual(
        search.json().data.map((d: { slug: string }) => d.slug),
        ['a'],
      );
      const del = await app.inject({
        method: 'DELETE',
        url: `/api/v1/dashboards/${list.json().data[0].id}`,
        headers: { authorization: headers.authorization },
      });
      assert.equal(del.statusCode, 204);
      assert.equal((await app.inject({ method: 'GET', url: '/api/v1/dashboards', headers })).json().meta.total, 1);
    } finally {
      await app.close();
    }
  } finally {
    dir.remove();
  }
});
