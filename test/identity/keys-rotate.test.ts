import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow } from '../support/code-flow.ts';
import { runIdentityCommand } from './run-command.ts';

/**
 * `platform identity keys rotate` follows the management API's rule (oidc/signing-keys.ts `rotateSigningKeys`): staged
 * by default, the new key published at once and signing after IDENTITY_KEY_REFRESH_SECONDS, so no server signs with a
 * key another does not publish yet; `--immediately` (the API's `{"immediately": true}`) for a compromised key signs at
 * once and says verifiers may reject its tokens until they fetch the JWKS again. Both record `signing-key.rotate`.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const REFRESH = 600;
const CALLBACK = 'http://localhost:8765/callback';
const PASSWORD = 'a long enough passphrase';
let server: Server;
let clientId: string;
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);
const cli = (...args: string[]) => runIdentityCommand(server.env, args);

const jwksKids = async () =>
  ((await (await fetch(`${server.issuer}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys
    .map((k) => k.kid)
    .sort();

/** The kid in the header of an ID token the server issues now. */
const signingKid = async () => {
  const got = await codeFlow(new TestBrowser(), {
    issuer: server.issuer,
    clientId,
    redirectUri: CALLBACK,
    scope: 'openid',
    credentials: { email: 'kim@example.com', password: PASSWORD },
  });
  assert.equal(got.status, 200);
  return JSON.parse(Buffer.from(got.tokens.id_token.split('.')[0], 'base64url').toString()).kid as string;
};

/** The key signing now, by the management API's list. */
const signingNow = async () =>
  ((await api('/signing-keys')).body.items as { kid: string; state: string }[]).find((k) => k.state === 'signing')!.kid;

const keyCount = async () =>
  Number((await server.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM signing_keys')).rows[0]!.n);

const changes = async () =>
  (
    await server.runtime.db.query<{ actor_kind: string; action: string; target_id: string; after: unknown }>(
      "SELECT actor_kind, action, target_id, after FROM admin_changes WHERE action = 'signing-key.rotate' ORDER BY id",
    )
  ).rows;

/** The rotation's answer says it signs about `seconds` from now (between the two instants around the call). */
const assertSignsIn = (signsFrom: string, seconds: number, before: number, after: number) => {
  const at = Date.parse(signsFrom);
  assert.ok(at >= before + seconds * 1000 - 1000 && at <= after + seconds * 1000 + 1000, signsFrom);
};

before(async () => {
  server = await startServer('idkeysrotate', {
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
    IDENTITY_KEY_REFRESH_SECONDS: String(REFRESH),
  });
  await server.createHuman('kim@example.com', PASSWORD);
  clientId = (
    await server.registerApp({
      name: 'Reader',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid'],
      firstParty: true,
    })
  ).clientId;
});
after(async () => {
  await server?.close();
});

test('keys rotate is staged by default: the new key is published at once, the old one signs until IDENTITY_KEY_REFRESH_SECONDS have passed', async () => {
  const old = await signingKid();
  const start = Date.now();
  const ran = await cli('keys', 'rotate', '--json');
  assert.equal(ran.code, 0, ran.err.join('\n'));
  const rotated = JSON.parse(ran.out.join('\n'));
  assert.deepEqual(Object.keys(rotated).sort(), ['immediately', 'kid', 'retired', 'signs_from']);
  assert.equal(rotated.immediately, false);
  assert.deepEqual(rotated.retired, [old]);
  assertSignsIn(rotated.signs_from, REFRESH, start, Date.now());

  // The server finds it at its next check (here: now); it publishes the new key and keeps signing with the old one.
  assert.equal(await server.runtime.reloadKeys(), true);
  assert.deepEqual(await jwksKids(), [old, rotated.kid].sort());
  assert.equal(await signingKid(), old, 'the old key still signs while the new one propagates');
  const listed = (await api('/signing-keys')).body.items;
  assert.deepEqual(
    listed.map((k: any) => [k.kid, k.state, k.signs_from]),
    [
      [rotated.kid, 'next', rotated.signs_from],
      [old, 'signing', null],
    ],
  );

  assert.deepEqual(await changes(), [
    { actor_kind: 'command', action: 'signing-key.rotate', target_id: rotated.kid, after: {} },
  ]);
});

test('keys rotate --immediately: the new key signs at once, the staged one and the signing one retired; the output warns of verifiers', async () => {
  const [staged, signing] = [(await api('/signing-keys')).body.items[0].kid, await signingKid()];
  const ran = await cli('keys', 'rotate', '--immediately');
  assert.equal(ran.code, 0, ran.err.join('\n'));
  assert.equal(ran.out.length, 3, ran.out.join('\n'));
  const kid = /^new signing key (\S+); retired (.+) \(published until what they signed expires\)$/.exec(ran.out[0]!);
  assert.ok(kid, ran.out[0]);
  assert.deepEqual(kid[2]!.split(', ').sort(), [staged, signing].sort());
  assert.match(
    ran.out[1]!,
    new RegExp(
      `^it signs from now \\(\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): each running server switches to it at its next reload \\(within IDENTITY_KEY_REFRESH_SECONDS, ${REFRESH} s\\)$`,
    ),
  );
  assert.match(ran.out[2]!, /^verifiers may reject the tokens it signs until they fetch the JWKS again/);

  assert.equal(await server.runtime.reloadKeys(), true);
  assert.equal(await signingKid(), kid[1], 'the new key signs at once');
  assert.equal(await signingNow(), kid[1]);
  assert.deepEqual(await jwksKids(), [staged, signing, kid[1]!].sort(), 'the retired keys stay published');
  // Published until what they signed has expired, counted from the last reload that may still sign with them.
  const until = await server.runtime.db.query<{ ok: boolean }>(
    `SELECT bool_and(abs(extract(epoch FROM publish_until - retired_at) - $1) < 2) AS ok
       FROM signing_keys WHERE kid = ANY($2)`,
    [REFRESH + 3900, [staged, signing]],
  );
  assert.equal(until.rows[0]!.ok, true);

  assert.deepEqual((await changes()).at(-1), {
    actor_kind: 'command',
    action: 'signing-key.rotate',
    target_id: kid[1],
    after: { immediately: true },
  });
});

test('keys rotate in text: when the new key signs', async () => {
  const start = Date.now();
  const ran = await cli('keys', 'rotate');
  assert.equal(ran.code, 0, ran.err.join('\n'));
  assert.equal(ran.out.length, 2, ran.out.join('\n'));
  const line =
    /^published at once; it signs from (\S+) \(in IDENTITY_KEY_REFRESH_SECONDS, (\d+) s\), once every running server has reloaded and serves it in its JWKS$/.exec(
      ran.out[1]!,
    );
  assert.ok(line, ran.out[1]);
  assert.equal(Number(line[2]), REFRESH);
  assertSignsIn(line[1]!, REFRESH, start, Date.now());
});

test('bad flags: a usage error (exit 2) naming the problem, nothing rotated or recorded', async () => {
  const [keys, recorded] = [await keyCount(), (await changes()).length];
  for (const [args, problem] of [
    [['--now'], /Unknown option '--now'/],
    [['--immediately=yes'], /Option '--immediately' does not take an argument/],
    [['now'], /unexpected argument "now"/],
  ] as const) {
    const ran = await cli('keys', 'rotate', ...args);
    assert.equal(ran.code, 2, args.join(' '));
    assert.deepEqual(ran.out, []);
    const said = ran.err.join('\n');
    assert.match(said, /^platform: identity keys rotate: /, said);
    assert.match(said, problem, said);
    assert.match(said, /usage: platform identity keys rotate \[--immediately\] \[--json\]/, said);
  }
  assert.equal(await keyCount(), keys);
  assert.equal((await changes()).length, recorded);
});

test('--help explains the wait and --immediately', async () => {
  const ran = await cli('keys', 'rotate', '--help');
  assert.equal(ran.code, 0);
  const help = ran.out.join('\n');
  assert.match(help, /usage: platform identity keys rotate \[--immediately\] \[--json\]/);
  assert.match(help, /--immediately: for a compromised key/);
  assert.match(help, /verifiers reject the tokens it signs until they fetch the JWKS again/);
});

test('the API: {"immediately": true} signs at once and is in the change log; a bad body is a 400 and rotates nothing', async () => {
  const signing = await signingNow();
  const rotated = await api('/signing-keys/rotate', { method: 'POST', body: { immediately: true } });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.equal(rotated.body.immediately, true);
  assert.ok(rotated.body.retired.includes(signing));
  assert.ok(Math.abs(Date.parse(rotated.body.signs_from) - Date.now()) < 5000, rotated.body.signs_from);
  assert.equal(await signingKid(), rotated.body.kid, 'the rotating instance signs with it at once');
  assert.deepEqual((await changes()).at(-1), {
    actor_kind: 'admin-token',
    action: 'signing-key.rotate',
    target_id: rotated.body.kid,
    after: { immediately: true },
  });

  const staged = await api('/signing-keys/rotate', { method: 'POST', body: { immediately: false } });
  assert.equal(staged.status, 200, JSON.stringify(staged.body));
  assert.equal(staged.body.immediately, false);
  assert.equal(await signingKid(), rotated.body.kid, 'false is the staged default');

  const keys = await keyCount();
  for (const body of [{ immediately: 'yes' }, { immediately: 1 }, { now: true }, ['immediately']]) {
    const r = await api('/signing-keys/rotate', { method: 'POST', body });
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.error.code, 'VALIDATION_ERROR', JSON.stringify(r.body));
  }
  assert.equal(await keyCount(), keys);

  const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as any;
  const op = doc.paths['/api/v1/signing-keys/rotate'].post;
  assert.match(op.description, /compromised key/);
  const schema = op.requestBody.content['application/json'].schema;
  assert.equal(schema.properties.immediately.type, 'boolean');
});
