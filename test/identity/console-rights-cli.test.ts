import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startServer, managementApi, type Server } from './support.ts';
import { IDENTITY_USAGE } from '../../src/identity/cli/command.ts';
import { reportFailure } from '../../src/kit/cli-runner.ts';
import { sendCommand, serveCommands, type ControlServer } from '../../src/kit/control.ts';
import { linkServices } from '../../src/platform/links.ts';
import { services } from '../../src/services.ts';
import { tempDir } from '../support/tmp.ts';
import { runIdentityCommand, type Ran } from './run-command.ts';

/** A command's output, run here or through a platform's control socket (which may find nobody to answer: no code). */
type Printed = Omit<Ran, 'code'> & { code: number | undefined };

/**
 * `platform identity console-rights show|set` (src/identity/cli/console-rights-command.ts), on real PostgreSQL: run
 * here on the service's database as a command typed while no platform runs, and through a control socket the way a
 * running `platform start` runs it, with the rights the linked console gives. Every change goes through the rights
 * store the API uses: the last-admin refusal, and a change-log row with the actor `command`.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PASSWORD = 'correct horse battery staple';
const USAGE_SET =
  'usage: platform identity console-rights set (--email EMAIL | --principal ID) (--rights RIGHT,... | --none) [--json]';

describe('platform identity console-rights', () => {
  let server: Server;
  let olga: string;
  let alice: string;
  let appPrincipal: string;
  const tmp = tempDir('rights-cli-');
  let control: ControlServer | undefined;
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );

  before(async () => {
    server = await startServer('idrightscli', {
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
      IDENTITY_EXTRA_SCOPES: 'audits,ingest:admin',
    });
    olga = await server.createHuman('olga@acme.example', PASSWORD, true);
    alice = await server.createHuman('alice@acme.example', PASSWORD);
    appPrincipal = (
      await server.registerApp({ name: 'Reports backend', appType: 'machine', allowedScopes: ['audits'] })
    ).principalId;
  });
  after(async () => {
    await control?.close();
    await server?.close();
    tmp.remove();
  });

  const run = (env: NodeJS.ProcessEnv, args: string[]) => runIdentityCommand(env, ['console-rights', ...args]);
  const cli = (...args: string[]) => run(server.env, args);
  const json = (r: Printed) => JSON.parse(r.out.join('\n'));
  const heldNames = (r: Printed) =>
    (json(r).rights as { name: string; held: boolean }[]).filter((x) => x.held).map((x) => x.name);
  const scopesOf = async (id: string) =>
    (
      await server.runtime.db.query<{ allowed_scopes: string[]; is_platform_admin: boolean }>(
        'SELECT p.allowed_scopes, h.is_platform_admin FROM principals p JOIN humans h ON h.principal_id = p.id WHERE p.id = $1',
        [id],
      )
    ).rows[0]!;
  const changeCount = async () =>
    Number((await server.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM admin_changes')).rows[0]!.n);
  /** A usage error's problem: the first of its lines (the usage follows). */
  const problem = (r: Printed) => r.err.join('\n').split('\n')[0];
  const noStack = (r: Printed) => assert.doesNotMatch(r.err.join('\n'), /\n\s+at /, 'no stack trace');

  test('`platform help` lists both commands', () => {
    const lines = IDENTITY_USAGE.filter((l) => l.startsWith('console-rights '));
    assert.deepEqual(
      lines.map((l) => l.split('  ')[0]),
      [
        'console-rights show (--email EMAIL | --principal ID)',
        'console-rights set (--email EMAIL | --principal ID) (--rights RIGHT,... | --none)',
      ],
    );
  });

  test('show lists each right of the catalog, held or not, as lines and as JSON', async () => {
    const r = await cli('show', '--email', 'alice@acme.example');
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.equal(r.out[0], `alice@acme.example (principal ${alice}) holds no console right`);
    assert.match(r.out[1]!, /^ {2}identity {2}not held {2}scope admin: identity's administration/);
    assert.match(r.out[2]!, /^ {2}audits {4}not held {2}scope audits: /);
    assert.match(r.out[3]!, /^ {2}events {4}not held {2}scope ingest:admin: /);
    const doc = json(await cli('show', '--principal', alice, '--json'));
    assert.equal(doc.principal_id, alice);
    assert.equal(doc.email, 'alice@acme.example');
    assert.deepEqual(
      doc.rights.map((x: { name: string; scope: string; held: boolean }) => [x.name, x.scope, x.held]),
      [
        ['identity', 'admin', false],
        ['audits', 'audits', false],
        ['events', 'ingest:admin', false],
      ],
    );
  });

  test('set gives exactly audits and events; the API sees them and the change log names the actor `command`', async () => {
    const r = await cli('set', '--email', 'alice@acme.example', '--rights', 'audits,events', '--json');
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.deepEqual(heldNames(r), ['audits', 'events']);
    const rights = await api(`/principals/${alice}/console-rights`);
    assert.deepEqual(
      rights.body.rights.filter((x: { held: boolean }) => x.held).map((x: { name: string }) => x.name),
      ['audits', 'events'],
    );
    assert.deepEqual((await scopesOf(alice)).allowed_scopes.sort(), [
      'audits',
      'email',
      'ingest:admin',
      'offline_access',
      'openid',
      'profile',
    ]);
    const rows = await server.runtime.db.query<Record<string, unknown>>(
      "SELECT actor_kind, actor_id, action, target_type, target_id, before, after FROM admin_changes WHERE target_id = $1 AND action = 'console_rights.set' ORDER BY id",
      [alice],
    );
    assert.deepEqual(rows.rows, [
      {
        actor_kind: 'command',
        actor_id: null,
        action: 'console_rights.set',
        target_type: 'principal',
        target_id: alice,
        before: { rights: [] },
        after: { rights: ['audits', 'events'] },
      },
    ]);
    // The change log's API answers the new actor, and finds it by its kind.
    const log = await api('/admin-log?actor=command');
    assert.equal(log.status, 200, JSON.stringify(log.body));
    assert.deepEqual(
      log.body.items.map((i: { actor: { kind: string }; action: string; target: { id: string } }) => [
        i.actor.kind,
        i.action,
        i.target.id,
      ]),
      [['command', 'console_rights.set', alice]],
    );
    // The human lines say what the person holds now, right by right.
    const again = await cli('set', '--principal', alice, '--rights', 'events');
    assert.equal(again.code, 0, again.err.join('\n'));
    assert.equal(again.out[0], `alice@acme.example (principal ${alice}) now holds events`);
    assert.match(again.out[2]!, /^ {2}audits {4}not held/);
    assert.match(again.out[3]!, /^ {2}events {4}held {6}scope ingest:admin/);
  });

  test('taking identity from the last person holding it is refused with the reason, exit 1, and nothing changes', async () => {
    const given = await cli('set', '--email', 'olga@acme.example', '--rights', 'identity,audits,events');
    assert.equal(given.code, 0, given.err.join('\n'));
    const scopes = await scopesOf(olga);
    assert.equal(scopes.is_platform_admin, true);
    assert.ok(scopes.allowed_scopes.includes('admin'));
    const count = await changeCount();

    for (const args of [['--rights', 'audits'], ['--none']]) {
      const r = await cli('set', '--email', 'olga@acme.example', ...args);
      assert.equal(r.code, 1);
      assert.deepEqual(r.out, []);
      assert.deepEqual(r.err, [
        'platform identity console-rights set: olga@acme.example is the last person with the identity right: give it to someone else first',
      ]);
    }
    assert.deepEqual(await scopesOf(olga), scopes, 'her scopes and platform-admin flag are unchanged');
    assert.equal(await changeCount(), count, 'nothing recorded');
    const shown = await cli('show', '--email', 'olga@acme.example', '--json');
    assert.deepEqual(heldNames(shown), ['identity', 'audits', 'events']);
  });

  test('--none takes every right; an empty --rights is refused rather than read as none', async () => {
    const empty = await cli('set', '--email', 'alice@acme.example', '--rights', '');
    assert.equal(empty.code, 2);
    assert.deepEqual(empty.err, [
      `platform: identity console-rights set: --rights names no right: name them (identity,audits,events), or give --none for no right\n${USAGE_SET}`,
    ]);
    const both = await cli('set', '--email', 'alice@acme.example', '--rights', 'audits', '--none');
    assert.equal(both.code, 2);
    assert.equal(problem(both), 'platform: identity console-rights set: --rights and --none cannot be combined');
    const neither = await cli('set', '--email', 'alice@acme.example');
    assert.equal(neither.code, 2);
    assert.equal(
      problem(neither),
      'platform: identity console-rights set: --rights is required (or --none, to take every right)',
    );
    assert.deepEqual(heldNames(await cli('show', '--email', 'alice@acme.example', '--json')), ['events']);

    const none = await cli('set', '--email', 'alice@acme.example', '--none', '--json');
    assert.equal(none.code, 0, none.err.join('\n'));
    assert.deepEqual(heldNames(none), []);
  });

  test('an unknown right is a usage error (exit 2) naming the rights, and changes nothing', async () => {
    const count = await changeCount();
    const r = await cli('set', '--email', 'alice@acme.example', '--rights', 'audits,root');
    assert.equal(r.code, 2);
    assert.deepEqual(r.err, [
      `platform: identity console-rights set: unknown right "root"; the rights here: identity, audits, events\n${USAGE_SET}`,
    ]);
    assert.equal(await changeCount(), count);
  });

  test('an unknown email, an unknown principal and a principal that is not a person: exit 1 with the reason', async () => {
    const count = await changeCount();
    const email = await cli('set', '--email', 'nobody@acme.example', '--rights', 'audits');
    assert.equal(email.code, 1);
    assert.deepEqual(email.err, ['platform identity console-rights set: no person with the email nobody@acme.example']);
    const shown = await cli('show', '--email', 'nobody@acme.example');
    assert.equal(shown.code, 1);
    assert.deepEqual(shown.err, [
      'platform identity console-rights show: no person with the email nobody@acme.example',
    ]);

    const missing = '00000000-0000-4000-8000-000000000000';
    const id = await cli('set', '--principal', missing, '--rights', 'audits');
    assert.equal(id.code, 1);
    assert.deepEqual(id.err, [`platform identity console-rights set: no principal ${missing}`]);

    for (const verb of ['show', 'set']) {
      const r = await cli(verb, '--principal', appPrincipal, ...(verb === 'set' ? ['--rights', 'audits'] : []));
      assert.equal(r.code, 1);
      assert.deepEqual(r.err, [
        `platform identity console-rights ${verb}: console rights are a person's: principal ${appPrincipal} is of type application`,
      ]);
      noStack(r);
    }

    const both = await cli('show', '--email', 'alice@acme.example', '--principal', alice);
    assert.equal(both.code, 2);
    assert.equal(
      problem(both),
      'platform: identity console-rights show: name the person with --email or with --principal (one)',
    );
    const notAnId = await cli('show', '--principal', 'alice');
    assert.equal(notAnId.code, 2);
    assert.equal(
      problem(notAnId),
      'platform: identity console-rights show: --principal alice is not a principal id (a UUID)',
    );
    for (const r of [email, shown, id, both, notAnId]) noStack(r);
    assert.equal(await changeCount(), count);
  });

  test('identity alone knows the rights whose scope it knows: the others are refused with what to do', async () => {
    const alone = { ...server.env, IDENTITY_EXTRA_SCOPES: '' };
    const shown = await run(alone, ['show', '--email', 'olga@acme.example', '--json']);
    assert.equal(shown.code, 0, shown.err.join('\n'));
    assert.deepEqual(
      json(shown).rights.map((x: { name: string }) => x.name),
      ['identity'],
    );
    const r = await run(alone, ['set', '--email', 'alice@acme.example', '--rights', 'audits']);
    assert.equal(r.code, 2);
    assert.equal(
      problem(r),
      'platform: identity console-rights set: the audits right is not known here (the rights here: identity): identity started alone knows it once IDENTITY_EXTRA_SCOPES names its scope (audits), and it knows every right while `platform start` runs it with the dashboard',
    );
  });

  test('run by a running platform over its control socket, the command uses the linked console’s rights', async () => {
    // What `platform start identity dashboard audit` does: one environment, the configs linked, and each service's
    // commands taken on a control socket and run in that process (src/platform/start.ts runHere).
    const env: NodeJS.ProcessEnv = {
      ...server.env,
      IDENTITY_EXTRA_SCOPES: '',
      AUDIT_REQUIRED_SCOPE: 'audits:run',
      DASHBOARD_PLATFORM_DATA: 'false',
    };
    const loaded = services
      .filter((s) => ['identity', 'dashboard', 'audit'].includes(s.name))
      .map((s) => ({ name: s.name, loaded: s.load(env) }));
    assert.ok(linkServices(loaded).wired.includes('dashboard → identity'));
    const identity = loaded.find((s) => s.name === 'identity')!.loaded;
    control = await serveCommands(tmp.path, 'identity', (args, io) =>
      identity.command!(args, io).catch((err: unknown) => reportFailure(err, io)),
    );
    const viaSocket = async (...args: string[]): Promise<Printed> => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await sendCommand(tmp.path, ['identity', 'console-rights', ...args], {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      return { code, out, err };
    };

    const set = await viaSocket('set', '--email', 'alice@acme.example', '--rights', 'identity,audits', '--json');
    assert.equal(set.code, 0, set.err.join('\n'));
    assert.deepEqual(
      json(set).rights.map((x: { name: string; scope: string; held: boolean }) => [x.name, x.scope, x.held]),
      [
        ['identity', 'admin', true],
        ['audits', 'audits:run', true],
        ['events', 'ingest:admin', false],
      ],
    );
    const scopes = await scopesOf(alice);
    assert.equal(scopes.is_platform_admin, true);
    assert.ok(scopes.allowed_scopes.includes('audits:run'));

    // Olga now may lose identity (Alice holds it); then Alice is the last, and the socket brings back the refusal.
    const olgaLoses = await viaSocket('set', '--email', 'olga@acme.example', '--rights', 'events');
    assert.equal(olgaLoses.code, 0, olgaLoses.err.join('\n'));
    const refused = await viaSocket('set', '--email', 'alice@acme.example', '--none');
    assert.equal(refused.code, 1);
    assert.deepEqual(refused.err, [
      'platform identity console-rights set: alice@acme.example is the last person with the identity right: give it to someone else first',
    ]);
    const unknown = await viaSocket('set', '--email', 'alice@acme.example', '--rights', 'owner');
    assert.equal(unknown.code, 2);
    assert.equal(
      problem(unknown),
      'platform: identity console-rights set: unknown right "owner"; the rights here: identity, audits, events',
    );
    const changes = await server.runtime.db.query<{ actor_kind: string; target_id: string }>(
      "SELECT actor_kind, target_id FROM admin_changes WHERE action = 'console_rights.set' ORDER BY id DESC LIMIT 2",
    );
    assert.deepEqual(changes.rows, [
      { actor_kind: 'command', target_id: olga },
      { actor_kind: 'command', target_id: alice },
    ]);
  });
});
