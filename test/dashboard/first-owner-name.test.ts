import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDashboardConfig } from '../../src/dashboard/config.ts';
import { ConfigError } from '../../src/kit/config.ts';
import { startDashboard } from './harness.ts';

const me = async (s: Awaited<ReturnType<typeof startDashboard>>, tenant: string, email: string) => {
  const pair = await s.token(tenant, email);
  return (await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${pair.accessToken}` } })).body;
};

test('DASHBOARD_BOOTSTRAP_OWNER makes the first owner with the name DASHBOARD_BOOTSTRAP_OWNER_NAME gives', async () => {
  const s = await startDashboard('dashownername', {
    DASHBOARD_BOOTSTRAP_OWNER: 'bea.boss@corp.example',
    DASHBOARD_BOOTSTRAP_OWNER_NAME: ' Bea Boss ',
    DASHBOARD_PLATFORM_DATA: 'false',
  });
  try {
    const owner = await me(s, 'default', 'bea.boss@corp.example');
    assert.deepEqual([owner.name, owner.role], ['Bea Boss', 'owner']);
  } finally {
    await s.close();
  }
});

test('without a name the first owner is called by the whole address, not its local part', async () => {
  const s = await startDashboard('dashownermail', {
    DASHBOARD_BOOTSTRAP_OWNER: 'bea.boss@corp.example',
    DASHBOARD_PLATFORM_DATA: 'false',
  });
  try {
    assert.equal((await me(s, 'default', 'bea.boss@corp.example')).name, 'bea.boss@corp.example');
  } finally {
    await s.close();
  }
});

test('the first-run form names the owner as given', async () => {
  const s = await startDashboard('dashownersetup', { DASHBOARD_PLATFORM_DATA: 'false' });
  try {
    const made = await s.request('POST', '/api/v1/setup', {
      body: { tenantName: 'Corp', tenantSlug: 'corp', email: 'olga.o@corp.example', name: 'Olga Owner' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.user.name, 'Olga Owner');
    assert.equal((await me(s, 'corp', 'olga.o@corp.example')).name, 'Olga Owner');
  } finally {
    await s.close();
  }
});

test('a blank, overlong or multi-line DASHBOARD_BOOTSTRAP_OWNER_NAME stops the start naming the variable', () => {
  for (const name of ['   ', 'x'.repeat(201), 'Bea\nBoss']) {
    assert.throws(
      () => loadDashboardConfig({ DASHBOARD_BOOTSTRAP_OWNER_NAME: name }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(
          err.message,
          'DASHBOARD_BOOTSTRAP_OWNER_NAME is malformed: expected a name of 1 to 200 characters, not blank, without control characters',
        );
        return true;
      },
    );
  }
  assert.equal(
    loadDashboardConfig({ DASHBOARD_BOOTSTRAP_OWNER_NAME: 'é'.repeat(200) }).bootstrapOwnerName,
    'é'.repeat(200),
  );
});
