import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

describe('access and refresh tokens', () => {
  let s: DashboardServer;
  let alice: SignedIn;
  before(async () => {
    s = await startDashboard('dashtokens');
    alice = await s.signIn({ tenant: 'acme', role: 'editor' });
  });
  after(async () => s?.close());

  test('health needs no token; me answers the signed-in user', async () => {
    assert.deepEqual((await s.request('GET', '/health')).body, { status: 'ok' });
    const me = await s.request('GET', '/api/v1/auth/me', { as: alice });
    assert.equal(me.status, 200);
    assert.equal(me.body.id, alice.userId);
    assert.equal(me.body.email, alice.email);
    assert.equal(me.body.role, 'editor');
    assert.equal(me.body.active, true);
    assert.ok(me.body.lastLoginAt);
  });

  test("the access token carries exactly the document's claims, HS256, 15 minutes", async () => {
    const [header, payload] = alice.accessToken
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    assert.equal(header.alg, 'HS256');
    assert.deepEqual(Object.keys(payload).sort(), ['email', 'exp', 'iat', 'iss', 'role', 'sub', 'tid', 'uid']);
    assert.equal(payload.iss, 'dashboard');
    assert.equal(payload.sub, String(alice.userId));
    assert.equal(payload.uid, alice.userId);
    assert.equal(payload.tid, alice.tenantId);
    assert.equal(payload.role, 'editor');
    assert.equal(payload.exp - payload.iat, 900);
    assert.equal(alice.expiresIn, 900);
    assert.equal(alice.tokenType, 'Bearer');
  });

  test('missing, malformed, tampered, expired and wrong-issuer tokens are 401 UNAUTHORIZED', async () => {
    const secret = new TextEncoder().encode(s.env.DASHBOARD_JWT_SECRET);
    const now = Math.floor(Date.now() / 1000);
    const claims = { uid: alice.userId, email: alice.email, role: 'owner', tid: alice.tenantId };
    const sign = (c: Record<string, unknown>, iss: string, iat: number, exp: number, key = secret) =>
      new SignJWT(c)
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(iss)
        .setSubject(String(alice.userId))
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(key);
    const [h, p, sig] = alice.accessToken.split('.');
    const elevated = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), role: 'owner' }),
    ).toString('base64url');
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      'not bearer': `Basic ${Buffer.from('a:b').toString('base64')}`,
      garbage: 'Bearer not-a-jwt',
      'tampered payload': `Bearer ${h}.${elevated}.${sig}`,
      'tampered signature': `Bearer ${h}.${p}.${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`,
      'alg none': `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`,
      expired: `Bearer ${await sign(claims, 'dashboard', now - 1000, now - 100)}`,
      'wrong issuer': `Bearer ${await sign(claims, 'someone-else', now, now + 600)}`,
      'other secret': `Bearer ${await sign(claims, 'dashboard', now, now + 600, new TextEncoder().encode('x'.repeat(32)))}`,
      // Signed with the real secret but never issued: the service only honours tokens it issued.
      'forged with the secret': `Bearer ${await sign(claims, 'dashboard', now, now + 600)}`,
    };
    for (const [name, authorization] of Object.entries(cases)) {
      const r = await s.request('GET', '/api/v1/auth/me', { headers: authorization ? { authorization } : {} });
      assert.equal(r.status, 401, name);
      assert.equal(r.body.error.code, 'UNAUTHORIZED', name);
      assert.equal(typeof r.body.error.message, 'string');
    }
  });

  test('refresh rotates; a reused refresh token revokes the whole family', async () => {
    const bob = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const first = await s.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: bob.refreshToken } });
    assert.equal(first.status, 200);
    assert.notEqual(first.body.refreshToken, bob.refreshToken);
    assert.equal(first.body.expiresIn, 900);
    const newer = { headers: { authorization: `Bearer ${first.body.accessToken}` } };
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: newer })).status, 200);

    const reused = await s.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: bob.refreshToken } });
    assert.equal(reused.status, 401);
    assert.equal(reused.body.error.code, 'UNAUTHORIZED');
    // The family is gone: the newest refresh token and every access token of the session.
    assert.equal(
      (await s.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.body.refreshToken } })).status,
      401,
    );
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: newer })).status, 401);
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: bob })).status, 401);
  });

  test('refresh: a body of the wrong shape is 400; any string that is not a valid refresh token is 401', async () => {
    for (const body of [
      {},
      { refreshToken: ['a', 'b'] },
      { refreshToken: null },
      { refreshToken: 42 },
      { refreshToken: 'a', extra: 1 },
      '[]',
      'not json',
    ]) {
      const r = await s.request('POST', '/api/v1/auth/refresh', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
    const dave = await s.signIn({ tenant: 'acme', role: 'viewer' });
    for (const refreshToken of [
      'drt_unknown',
      '',
      'x'.repeat(201),
      'x'.repeat(100_000),
      dave.accessToken, // an access token pasted where the refresh token goes
      `${dave.refreshToken}x`,
    ]) {
      const r = await s.request('POST', '/api/v1/auth/refresh', { body: { refreshToken } });
      assert.equal(r.status, 401, `${refreshToken.slice(0, 40)} (${refreshToken.length})`);
      assert.deepEqual(r.body.error, { code: 'UNAUTHORIZED', message: 'invalid or expired refresh token' });
    }
    // None of those spent dave's refresh token.
    assert.equal(
      (await s.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: dave.refreshToken } })).status,
      200,
    );
  });

  test("logout revokes the session's access and refresh tokens, not other users' sessions", async () => {
    const carol = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const other = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const out = await s.request('POST', '/api/v1/auth/logout', { as: carol });
    assert.equal(out.status, 204);
    assert.equal(out.body, undefined);
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: carol })).status, 401);
    assert.equal(
      (await s.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: carol.refreshToken } })).status,
      401,
    );
    assert.equal(
      (await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${other.accessToken}` } })).status,
      200,
    );
  });
});
