import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, managementApi, type Server } from './support.ts';
import { createOrganization } from '../../src/identity/organizations/store.ts';
import { createListing, moveListing } from '../../src/identity/marketplace/listing-store.ts';
import { LISTING_MOVES } from '../../src/identity/marketplace/listing-transitions.ts';
import { createSubscription } from '../../src/identity/billing/subscription-store.ts';
import { tempDir } from '../support/tmp.ts';
import { runIdentityCommand, type Ran } from './run-command.ts';

/**
 * Every mutating `platform identity …` command records its change in admin_changes with the actor `command`, named as
 * the management API names the same change (so the change log's filters and the webhooks' event types are the same
 * whichever path made it), with no secret in it; a failed command and a read-only one record nothing. On real
 * PostgreSQL, the commands run on the service's database as typed in a shell while the server runs.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PASSWORD = 'correct horse battery staple';

interface Row {
  id: string;
  actor_kind: string;
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  before: unknown;
  after: Record<string, unknown> | null;
  event_type: string | null;
}

describe('platform identity commands in the change log', () => {
  let server: Server;
  let alice: string;
  let orgId: string;
  const tmp = tempDir('cli-log-');
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );

  before(async () => {
    server = await startServer('idclilog', {
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
      // Deliveries stay queued (pending) for the test to read: no send is attempted meanwhile.
      IDENTITY_WEBHOOK_POLL_MS: '3600000',
    });
    alice = await server.createHuman('alice@acme.example', PASSWORD);
    orgId = (await createOrganization(server.runtime.db, { name: 'Seller', slug: 'seller' })).id;
  });
  after(async () => {
    await server?.close();
    tmp.remove();
  });

  const cli = (...args: string[]) => runIdentityCommand(server.env, args);
  const json = (r: Ran) => JSON.parse(r.out.join('\n'));
  const mark = async () =>
    Number(
      (await server.runtime.db.query<{ n: string }>('SELECT coalesce(max(id), 0) AS n FROM admin_changes')).rows[0]!.n,
    );
  const rowsSince = async (from: number) =>
    (
      await server.runtime.db.query<Row>(
        `SELECT id::text, actor_kind, actor_id, action, target_type, target_id, before, after, event_type
           FROM admin_changes WHERE id > $1 ORDER BY id`,
        [from],
      )
    ).rows;
  /** What a row says, without its id and `after` (compared on their own). */
  const said = ({ id: _, after: __, ...rest }: Row) => rest;
  const byCommand = (action: string, target_type: string, target_id: string, event_type: string | null) => ({
    actor_kind: 'command',
    actor_id: null,
    action,
    target_type,
    target_id,
    before: null,
    event_type,
  });
  /** A command that must succeed, and the change-log rows it wrote. */
  const recorded = async (...args: string[]) => {
    const from = await mark();
    const ran = await cli(...args);
    assert.equal(ran.code, 0, ran.err.join('\n'));
    return { ran, rows: await rowsSince(from) };
  };
  /** The same change through the management API (the admin token), and the rows its hook wrote. */
  const viaApi = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const from = await mark();
    const r = await api(path, { method: 'POST', ...init });
    assert.ok(r.status >= 200 && r.status < 300, JSON.stringify(r.body));
    return { body: r.body, rows: await rowsSince(from) };
  };
  const named = (rows: Row[]) => rows.map((r) => [r.action, r.target_type, r.event_type]);
  const keys = (row: Row | undefined) => Object.keys(row?.after ?? {}).sort();
  const noSecret = (rows: Row[], secret: string) =>
    assert.ok(!JSON.stringify(rows).includes(secret), `the secret ${secret.slice(0, 6)}… is nowhere in the log`);

  test('admin create: principal.create without the generated password; a webhook listening for principal.created gets a delivery', async () => {
    const hook = async (events: string, enabled = true) =>
      (
        await server.runtime.db.query<{ id: string }>(
          "INSERT INTO webhooks (url, event_types, enabled, secret_sealed) VALUES ('https://hooks.example/x', $1, $2, 'sealed') RETURNING id",
          [events, enabled],
        )
      ).rows[0]!.id;
    const listening = await hook('{principal.created}');
    const everything = await hook('{}');
    await hook('{application.created}');
    await hook('{principal.created}', false);

    const { ran, rows } = await recorded('admin', 'create', '--email', 'ada@acme.example', '--name', 'Ada', '--json');
    const made = json(ran);
    assert.equal(made.created, true);
    assert.ok(made.password.length >= 20, 'a password was generated and shown');
    assert.deepEqual(rows.map(said), [
      byCommand('principal.create', 'principal', made.principal_id, 'principal.created'),
    ]);
    assert.deepEqual(rows[0]!.after, {
      type: 'human',
      email: 'ada@acme.example',
      password: '[redacted]',
      display_name: 'Ada',
      is_platform_admin: true,
      email_verified: true,
    });
    noSecret(rows, made.password);

    const deliveries = await server.runtime.db.query<{ webhook_id: string; event_type: string; state: string }>(
      'SELECT webhook_id, event_type, state FROM webhook_deliveries WHERE change_id = $1 ORDER BY webhook_id',
      [rows[0]!.id],
    );
    assert.deepEqual(
      deliveries.rows,
      [listening, everything]
        .sort()
        .map((webhook_id) => ({ webhook_id, event_type: 'principal.created', state: 'pending' })),
    );

    // The API's path names the same change alike.
    const viaPost = await viaApi('/principals', {
      body: {
        type: 'human',
        email: 'bea@acme.example',
        password: PASSWORD,
        display_name: 'Bea',
        is_platform_admin: true,
        email_verified: true,
      },
    });
    assert.deepEqual(named(viaPost.rows), named(rows));
    assert.deepEqual(keys(viaPost.rows[0]), keys(rows[0]));
  });

  test('admin create of an existing person: console_rights.set and, with --password, principal.password.set, the password nowhere', async () => {
    const chosen = 'a new and long password for alice';
    const { ran, rows } = await recorded('admin', 'create', '--email', 'alice@acme.example', '--password', chosen);
    assert.deepEqual(ran.out, [`alice@acme.example is now a platform admin (principal ${alice}); password updated`]);
    assert.deepEqual(rows.map(said), [
      { ...byCommand('console_rights.set', 'principal', alice, null), before: { rights: [] } },
      byCommand('principal.password.set', 'principal', alice, 'principal.updated'),
    ]);
    assert.deepEqual(
      rows.map((r) => r.after),
      [{ rights: ['identity'] }, { password: '[redacted]' }],
    );
    noSecret(rows, chosen);

    const viaPut = await viaApi(`/principals/${alice}/password`, { method: 'PUT', body: { password: chosen } });
    assert.deepEqual(named(viaPut.rows), named(rows.slice(1)));
    assert.deepEqual(viaPut.rows[0]!.after, rows[1]!.after);
  });

  test('apps create: application.create with what was asked, the client secret nowhere', async () => {
    const { ran, rows } = await recorded(
      'apps',
      'create',
      '--name',
      'Reports',
      '--redirect-uri',
      'https://reports.example/cb',
      '--scope',
      'openid email',
      '--first-party',
      '--json',
    );
    const app = json(ran);
    assert.match(app.client_secret, /^cs_/);
    assert.deepEqual(rows.map(said), [byCommand('application.create', 'application', app.id, 'application.created')]);
    assert.deepEqual(rows[0]!.after, {
      name: 'Reports',
      redirect_uris: ['https://reports.example/cb'],
      allowed_scopes: ['openid', 'email'],
      first_party: true,
    });
    noSecret(rows, app.client_secret);

    const viaPost = await viaApi('/applications', {
      body: {
        name: 'Reports too',
        redirect_uris: ['https://reports.example/cb'],
        allowed_scopes: ['openid', 'email'],
        first_party: true,
      },
    });
    assert.deepEqual(named(viaPost.rows), named(rows));
    assert.deepEqual(keys(viaPost.rows[0]), keys(rows[0]));
    assert.equal(viaPost.rows[0]!.target_id, viaPost.body.application.id);
  });

  test('agents create: principal.create for the agent and principal.credential.create for its key pair; a refused one records nothing', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const keyFile = join(tmp.path, 'agent.pem');
    writeFileSync(keyFile, publicPem);
    const { ran, rows } = await recorded(
      'agents',
      'create',
      '--name',
      'cli-scribe',
      '--model',
      'acme-llm-4',
      '--for',
      'alice@acme.example',
      '--scope',
      'profile',
      '--public-key',
      keyFile,
      '--key-id',
      'scribe-key',
      '--key-algorithm',
      'ES256',
      '--json',
    );
    const agent = json(ran);
    assert.deepEqual(rows.map(said), [
      byCommand('principal.create', 'principal', agent.id, 'principal.created'),
      byCommand('principal.credential.create', 'principal', agent.id, null),
    ]);
    assert.deepEqual(
      {
        type: rows[0]!.after!.type,
        name: rows[0]!.after!.name,
        model_id: rows[0]!.after!.model_id,
        allowed_scopes: rows[0]!.after!.allowed_scopes,
        delegating_principal_id: rows[0]!.after!.delegating_principal_id,
      },
      {
        type: 'agent',
        name: 'cli-scribe',
        model_id: 'acme-llm-4',
        allowed_scopes: ['profile'],
        delegating_principal_id: alice,
      },
    );
    assert.deepEqual(rows[1]!.after, {
      type: 'keypair',
      public_key: publicPem,
      key_algorithm: 'ES256',
      key_id: 'scribe-key',
      credential_id: agent.credential_id,
    });
    noSecret(rows, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().split('\n')[1]!);

    const viaPost = await viaApi('/principals', {
      body: { type: 'agent', name: 'api-scribe', model_id: 'acme-llm-4' },
    });
    const viaKey = await viaApi(`/principals/${viaPost.body.id}/credentials`, {
      body: { type: 'keypair', public_key: publicPem, key_algorithm: 'ES256', key_id: 'api-scribe-key' },
    });
    assert.deepEqual(named([...viaPost.rows, ...viaKey.rows]), named(rows));
    assert.deepEqual(keys(viaKey.rows[0]), keys(rows[1]));

    const from = await mark();
    const taken = await cli('agents', 'create', '--name', 'cli-scribe', '--model', 'm');
    assert.notEqual(taken.code, 0);
    const keyTaken = await cli(
      'agents',
      'create',
      '--name',
      'cli-scribe-2',
      '--model',
      'm',
      '--public-key',
      keyFile,
      '--key-id',
      'scribe-key',
      '--key-algorithm',
      'ES256',
    );
    assert.notEqual(keyTaken.code, 0);
    assert.deepEqual(await rowsSince(from), []);
    const leftBehind = await server.runtime.db.query("SELECT 1 FROM principals WHERE identifier = 'cli-scribe-2'");
    assert.equal(leftBehind.rowCount, 0, 'a key refused leaves no agent behind');
  });

  test("keys rotate: signing-key.rotate, its target the new key's kid; --immediately in its details", async () => {
    const { ran, rows } = await recorded('keys', 'rotate', '--json');
    const rotated = json(ran);
    assert.deepEqual(rows.map(said), [byCommand('signing-key.rotate', 'signing-key', rotated.kid, null)]);
    assert.deepEqual(rows[0]!.after, {});

    const viaPost = await viaApi('/signing-keys/rotate');
    assert.deepEqual(named(viaPost.rows), named(rows));
    assert.equal(viaPost.rows[0]!.target_id, viaPost.body.kid);
    assert.deepEqual(viaPost.rows[0]!.after, rows[0]!.after);

    // The emergency rotation says so in the record, whichever path made it.
    const now = await recorded('keys', 'rotate', '--immediately', '--json');
    const urgent = json(now.ran);
    assert.equal(urgent.immediately, true);
    assert.deepEqual(now.rows.map(said), [byCommand('signing-key.rotate', 'signing-key', urgent.kid, null)]);
    assert.deepEqual(now.rows[0]!.after, { immediately: true });
    const urgentPost = await viaApi('/signing-keys/rotate', { body: { immediately: true } });
    assert.deepEqual(named(urgentPost.rows), named(now.rows));
    assert.deepEqual(urgentPost.rows[0]!.after, now.rows[0]!.after);
  });

  test('mfa reset: second_factors.reset on the person, as the API records it; an unknown email records nothing', async () => {
    const { ran, rows } = await recorded('mfa', 'reset', '--email', 'alice@acme.example', '--json');
    assert.deepEqual(json(ran), { principal_id: alice, revoked: { totp: 0, webauthn: 0 } });
    assert.deepEqual(rows.map(said), [byCommand('second_factors.reset', 'principal', alice, 'second_factor.removed')]);
    assert.deepEqual(rows[0]!.after, { totp_revoked: 0, passkeys_revoked: 0 });

    const viaPost = await viaApi(`/principals/${alice}/second-factors/reset`);
    assert.deepEqual(named(viaPost.rows), named(rows));
    assert.deepEqual(viaPost.rows[0]!.after, rows[0]!.after);

    const from = await mark();
    const unknown = await cli('mfa', 'reset', '--email', 'nobody@acme.example');
    assert.equal(unknown.code, 1);
    assert.deepEqual(await rowsSince(from), []);
  });

  test('listings publish, withdraw and archive: listing.<move> on the listing; a refused move records nothing', async () => {
    const db = server.runtime.db;
    const listing = async (title: string) => {
      const l = await createListing(db, { title, product_type: 'pack', creator_org_id: orgId, owner_id: alice });
      await moveListing(db, l.id, LISTING_MOVES.submit);
      return l.id;
    };
    const charts = await listing('Charts pack');
    const maps = await listing('Maps pack');
    const published = await recorded('listings', 'publish', charts);
    assert.match(published.ran.out[0]!, /is now published/);
    const withdrawn = await recorded('listings', 'withdraw', maps);
    const archived = await recorded('listings', 'archive', charts);
    assert.deepEqual([...published.rows, ...withdrawn.rows, ...archived.rows].map(said), [
      byCommand('listing.publish', 'listing', charts, null),
      byCommand('listing.withdraw', 'listing', maps, null),
      byCommand('listing.archive', 'listing', charts, null),
    ]);
    assert.deepEqual(published.rows[0]!.after, {});

    const viaPost = await viaApi(`/listings/${await listing('Icons pack')}/publish`);
    assert.deepEqual(named(viaPost.rows), named(published.rows));

    const from = await mark();
    const again = await cli('listings', 'publish', charts);
    assert.equal(again.code, 1);
    assert.match(again.err.join('\n'), /cannot move to published/);
    const missing = await cli('listings', 'archive', '00000000-0000-4000-8000-000000000000');
    assert.equal(missing.code, 1);
    assert.deepEqual(missing.err, [
      'platform identity listings archive: no listing 00000000-0000-4000-8000-000000000000',
    ]);
    assert.deepEqual(await rowsSince(from), []);
  });

  test('read-only commands record nothing', async () => {
    await createSubscription(server.runtime.db, orgId, { plan_tier: 'pro', status: 'active' });
    const from = await mark();
    for (const args of [
      ['agents', 'list', '--for', 'alice@acme.example'],
      ['listings', 'list'],
      ['subscriptions', 'show', orgId],
      ['console-rights', 'show', '--email', 'alice@acme.example'],
    ]) {
      const r = await cli(...args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err.join('\n')}`);
    }
    assert.deepEqual(await rowsSince(from), []);
  });
});
