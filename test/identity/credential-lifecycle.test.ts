import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { startServer, basic, form, managementApi, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { signInAt } from './account-support.ts';
import { waitFor } from '../support/wait.ts';

// Expired, revoked (with a reason) and replayed credentials of every kind a machine or person presents, and the
// last_used_at / last_used_ip each use leaves. (API keys: credentials.test.ts covers the same for them.)
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ADMIN = randomBytes(24).toString('hex');
let server: Server;
let exchanger: { id: string; clientId: string; secret: string | undefined };

const api = managementApi(
  () => server.issuer,
  () => ADMIN,
);
const clientCredentials = (clientId: string, secret: string) =>
  form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials' },
    { authorization: basic(clientId, secret) },
  );

before(async () => {
  server = await startServer('idcredlife', { IDENTITY_ADMIN_TOKEN: ADMIN, IDENTITY_EXTRA_SCOPES: 'reports:read' });
  exchanger = await server.registerApp({ name: 'Gateway', appType: 'machine', allowedScopes: ['reports:read'] });
});
after(async () => server?.close());

test('a key pair: expired and revoked (reason kept) keys are refused, a replayed jti is refused, and each use records last_used_at and the address', async () => {
  const agent = (
    await api('/principals', {
      method: 'POST',
      body: { type: 'agent', name: 'lifecycle-agent', model_id: 'm', allowed_scopes: ['reports:read'] },
    })
  ).body;
  const pair = await generateKeyPair('RS256', { extractable: true });
  const made = await api(`/principals/${agent.id}/credentials`, {
    method: 'POST',
    body: {
      type: 'keypair',
      public_key: await exportSPKI(pair.publicKey),
      key_id: 'life-key',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const credentialId = made.body.credential.id as string;
  const sign = (jti = randomUUID()) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'life-key' })
      .setIssuer(agent.id)
      .setSubject(agent.id)
      .setAudience(server.issuer)
      .setIssuedAt()
      .setExpirationTime('60s')
      .setJti(jti)
      .sign(pair.privateKey);
  const use = async (jwt: string) =>
    form(
      `${server.issuer}/oauth/token`,
      { grant_type: JWT_BEARER, assertion: jwt },
      { authorization: basic(exchanger.clientId, exchanger.secret!) },
    );

  assert.equal((await api(`/principals/${agent.id}/credentials/${credentialId}`)).body.last_used_at, null);
  const jwt = await sign();
  assert.equal((await use(jwt)).status, 200);
  const used = (await api(`/principals/${agent.id}/credentials/${credentialId}`)).body;
  assert.ok(used.last_used_at, 'last_used_at is set');
  assert.equal(used.last_used_ip, '127.0.0.1');
  const replay = await use(jwt);
  assert.equal(replay.status, 400);
  assert.equal(replay.json.error, 'invalid_grant', 'the same jti again');

  await server.runtime.db.query("UPDATE credentials SET expires_at = now() - interval '1 second' WHERE id = $1", [
    credentialId,
  ]);
  const expired = await use(await sign());
  assert.equal(expired.json.error, 'invalid_grant', 'an expired key');
  await server.runtime.db.query("UPDATE credentials SET expires_at = now() + interval '1 hour' WHERE id = $1", [
    credentialId,
  ]);
  assert.equal((await use(await sign())).status, 200);

  const revoked = await api(`/principals/${agent.id}/credentials/${credentialId}/revoke`, {
    method: 'POST',
    body: { reason: 'key left on a laptop' },
  });
  assert.equal(revoked.status, 200);
  assert.equal(revoked.body.revoked_reason, 'key left on a laptop');
  assert.ok(revoked.body.revoked_at);
  assert.equal((await use(await sign())).json.error, 'invalid_grant', 'a revoked key');
});

test('a password: an expired one no longer signs in, a replaced one is revoked as such, and a sign-in records last_used_at and the address', async () => {
  const who = { email: 'lifecycle@example.com', password: 'lifecycle long password' };
  const id = await server.createHuman(who.email, who.password);
  const signIn = async (password: string) =>
    (await signInAt(server.issuer, new TestBrowser(), '/account/password', { email: who.email, password })).res.status;
  const password = async () =>
    (await api(`/principals/${id}/credentials`)).body.items.find((c: any) => c.type === 'password' && !c.revoked);
  assert.equal((await password()).last_used_at, null);
  assert.equal(await signIn(who.password), 200);
  const used = await password();
  assert.ok(used.last_used_at);
  assert.equal(used.last_used_ip, '127.0.0.1');

  await server.runtime.db.query("UPDATE credentials SET expires_at = now() - interval '1 second' WHERE id = $1", [
    used.id,
  ]);
  assert.equal(await signIn(who.password), 401, 'an expired password');
  await server.runtime.db.query('UPDATE credentials SET expires_at = NULL WHERE id = $1', [used.id]);
  assert.equal(await signIn(who.password), 200);

  assert.equal(
    (await api(`/principals/${id}/password`, { method: 'PUT', body: { password: 'lifecycle second password' } }))
      .status,
    204,
  );
  assert.equal(await signIn(who.password), 401, 'the replaced password');
  const old = (await api(`/principals/${id}/credentials/${used.id}`)).body;
  assert.equal(old.revoked, true);
  assert.equal(old.revoked_reason, 'replaced');
});

test('a client secret: expired and revoked (reason kept) secrets are refused at the token endpoint; use records last_used_at and the address', async () => {
  const { createSecret } = await import('../../src/identity/apps/store.ts');
  const app = await server.registerApp({ name: 'Secretive', appType: 'machine', allowedScopes: [] });
  const listed = async () => (await api(`/applications/${app.id}/secrets`)).body.items as any[];
  const first = (await listed())[0];
  assert.equal(first.last_used_at, null);
  assert.equal((await clientCredentials(app.clientId, app.secret!)).status, 200);
  // The secret's last use is written beside the request, not inside it.
  const used = await waitFor("the secret's last use", async () => {
    const secret = (await listed())[0];
    return secret.last_used_at !== null && secret;
  });
  assert.ok(used.last_used_at, 'last_used_at is set');
  assert.equal(used.last_used_ip, '127.0.0.1');
  assert.equal(JSON.stringify(await listed()).includes(app.secret!), false, 'never shown again');

  const expiring = await createSecret(server.runtime.db, app.id, new Date(Date.now() + 3_600_000));
  server.runtime.clients.invalidate(app.clientId);
  assert.equal((await clientCredentials(app.clientId, expiring.secret)).status, 200);
  await server.runtime.db.query("UPDATE oauth_app_secrets SET expires_at = now() - interval '1 second' WHERE id = $1", [
    expiring.id,
  ]);
  server.runtime.clients.invalidate(app.clientId);
  const expired = await clientCredentials(app.clientId, expiring.secret);
  assert.equal(expired.status, 401);
  assert.equal(expired.json.error, 'invalid_client', 'an expired secret');

  const revoked = await api(`/applications/${app.id}/secrets/${first.id}/revoke`, {
    method: 'POST',
    body: { reason: 'pasted in a ticket' },
  });
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  assert.equal(revoked.body.revoked, true);
  assert.equal(revoked.body.revoked_reason, 'pasted in a ticket');
  assert.ok(revoked.body.revoked_at);
  const refused = await clientCredentials(app.clientId, app.secret!);
  assert.equal(refused.status, 401, 'a revoked secret stops at once (the cache is invalidated)');
  assert.equal(refused.json.error, 'invalid_client');
  assert.equal(
    (await api(`/applications/${app.id}/secrets/${first.id}/revoke`, { method: 'POST', body: { reason: 'again' } }))
      .status,
    409,
  );
  assert.equal(
    (await api(`/applications/${app.id}/secrets/${first.id}/revoke`, { method: 'POST', body: {} })).status,
    400,
  );
  assert.equal(
    (await api(`/applications/${app.id}/secrets/${randomUUID()}/revoke`, { method: 'POST', body: { reason: 'x' } }))
      .status,
    404,
  );
  const deleted = await createSecret(server.runtime.db, app.id);
  assert.equal((await api(`/applications/${app.id}/secrets/${deleted.id}`, { method: 'DELETE' })).status, 204);
  assert.equal(
    (await listed()).find((s) => s.id === deleted.id).revoked_reason,
    'revoked',
    'DELETE revokes with the plain reason',
  );
});
