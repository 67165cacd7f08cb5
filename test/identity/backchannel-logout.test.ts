import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow } from '../support/code-flow.ts';

/**
 * OpenID Connect Back-Channel Logout 1.0: when a person's session ends — signing out, an administrator ending their
 * sessions, deactivation — each app that registered a backchannel_logout_uri gets a logout token. The receiver here
 * validates the token the way section 2.6 of the specification says a relying party must.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PASSWORD = 'correct horse battery staple';
const CALLBACK = 'http://localhost:8765/callback';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

interface Logout {
  path: string;
  claims: JWTPayload & { sid?: string; events?: Record<string, unknown> };
}

describe('back-channel logout', () => {
  let server: Server;
  let receiverUrl: string;
  let app: { id: string; clientId: string };
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );
  const logouts: Logout[] = [];
  const waiting: { test: (l: Logout) => boolean; resolve: (l: Logout) => void }[] = [];
  const problems: string[] = [];
  let closeReceiver = async () => {};

  /** Section 2.6: the token's signature by the issuer's key, iss, aud, iat, the event, sub or sid, and no nonce. */
  async function validate(path: string, body: string): Promise<Logout> {
    const token = new URLSearchParams(body).get('logout_token');
    assert.ok(token, 'the body is a form with logout_token');
    const header = decodeProtectedHeader(token);
    assert.equal(header.typ, 'logout+jwt');
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL('/.well-known/jwks.json', server.issuer)), {
      issuer: server.issuer,
      audience: app.clientId,
      algorithms: ['RS256'],
      requiredClaims: ['iat', 'jti', 'events'],
    });
    const claims = payload as Logout['claims'];
    assert.deepEqual(claims.events?.[EVENT], {}, 'events names the back-channel logout event with an empty object');
    assert.ok(claims.sub || claims.sid, 'a sub or a sid');
    assert.equal('nonce' in claims, false, 'no nonce');
    return { path, claims };
  }

  const next = (test: (l: Logout) => boolean) =>
    new Promise<Logout>((resolve) => {
      const seen = logouts.find(test);
      if (seen) resolve(seen);
      else waiting.push({ test, resolve });
    });

  before(async () => {
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        validate(req.url ?? '', body).then(
          (l) => {
            logouts.push(l);
            res.writeHead(200).end();
            for (const w of [...waiting])
              if (w.test(l)) {
                waiting.splice(waiting.indexOf(w), 1);
                w.resolve(l);
              }
          },
          (err: Error) => {
            problems.push(err.message);
            res.writeHead(400).end();
          },
        );
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    closeReceiver = () => new Promise<void>((r) => receiver.close(() => r()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    server = await startServer('idbclogout', {
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
      IDENTITY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      IDENTITY_WEBHOOK_POLL_MS: '100',
    });
    app = await server.registerApp({
      name: 'Notes',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid'],
      firstParty: true,
    });
    const set = await api(`/applications/${app.id}`, {
      method: 'PATCH',
      body: { backchannel_logout_uri: `${receiverUrl}/logout` },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.backchannel_logout_uri, `${receiverUrl}/logout`);
  });
  after(async () => {
    await server?.close();
    await closeReceiver();
    assert.deepEqual(problems, [], 'every logout token the receiver got was valid');
  });

  async function signIn(email: string): Promise<{ browser: TestBrowser; sub: string; sid: string }> {
    const browser = new TestBrowser();
    const got = await codeFlow(browser, {
      issuer: server.issuer,
      clientId: app.clientId,
      redirectUri: CALLBACK,
      scope: 'openid',
      credentials: { email, password: PASSWORD },
    });
    assert.equal(got.status, 200);
    const id = decodeJwt(got.tokens.id_token) as JWTPayload & { sid?: string };
    assert.ok(id.sid, 'the ID token names the session (sid)');
    return { browser, sub: String(id.sub), sid: id.sid };
  }

  test('discovery says back-channel logout is supported, with sessions', async () => {
    const d = (await (await fetch(new URL('/.well-known/openid-configuration', server.issuer))).json()) as Record<
      string,
      unknown
    >;
    assert.equal(d.backchannel_logout_supported, true);
    assert.equal(d.backchannel_logout_session_supported, true);
  });

  test('signing out on the sign-out page logs the app out of that session', async () => {
    const id = await server.createHuman('ana@acme.example', PASSWORD);
    const { browser, sub, sid } = await signIn('ana@acme.example');
    assert.equal(sub, id);
    const page = await (await browser.request(`${server.issuer}/signout`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    assert.equal((await browser.request(`${server.issuer}/signout`, { form: { csrf } })).status, 200);
    const got = await next((l) => l.claims.sub === id);
    assert.equal(got.claims.sid, sid);
    assert.equal(got.path, '/logout');
  });

  test("signing out through the provider's logout endpoint (RP-initiated) logs the app out too", async () => {
    const id = await server.createHuman('eli@acme.example', PASSWORD);
    const { browser, sid } = await signIn('eli@acme.example');
    const start = await browser.request(`${server.issuer}/oauth/logout`, { form: { client_id: app.clientId } });
    assert.equal(start.status, 303);
    const page = await (await browser.request(new URL(start.headers.get('location')!, server.issuer).href)).text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1];
    assert.ok(xsrf, 'the confirmation page carries its xsrf field');
    const confirmed = await browser.request(`${server.issuer}/oauth/logout/confirm`, { form: { xsrf, logout: 'yes' } });
    assert.ok(confirmed.status < 400, String(confirmed.status));
    const got = await next((l) => l.claims.sid === sid);
    assert.equal(got.claims.sub, id);
    // Sent once: by the provider while it ended its session; the login session that ended with it had no session left to queue.
    assert.equal(logouts.filter((l) => l.claims.sid === sid).length, 1);
  });

  test('an administrator signing a person out everywhere logs out each of their sessions', async () => {
    const id = await server.createHuman('ben@acme.example', PASSWORD);
    const one = await signIn('ben@acme.example');
    const two = await signIn('ben@acme.example');
    assert.notEqual(one.sid, two.sid);
    const r = await api(`/principals/${id}/sessions`, { method: 'DELETE' });
    assert.ok(r.status < 300, JSON.stringify(r.body));
    await next((l) => l.claims.sid === one.sid);
    await next((l) => l.claims.sid === two.sid);
  });

  test('deactivating a person logs their apps out', async () => {
    const id = await server.createHuman('cho@acme.example', PASSWORD);
    const { sid } = await signIn('cho@acme.example');
    assert.equal((await api(`/principals/${id}/deactivate`, { method: 'POST' })).status, 200);
    const got = await next((l) => l.claims.sid === sid);
    assert.equal(got.claims.sub, id);
  });

  test('a logout URI on the internal network is never reached; a bad one is refused', async () => {
    for (const [uri, reason] of [
      ['javascript:alert(1)', /http or https/],
      [`${receiverUrl}/logout#frag`, /fragment/],
      ['/relative', /absolute/],
    ] as const) {
      const r = await api(`/applications/${app.id}`, { method: 'PATCH', body: { backchannel_logout_uri: uri } });
      assert.equal(r.status, 400, uri);
      assert.match(r.body.error.message, reason);
    }
    const other = await server.registerApp({
      name: 'Metadata grabber',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid'],
      firstParty: true,
    });
    await api(`/applications/${other.id}`, {
      method: 'PATCH',
      body: { backchannel_logout_uri: 'http://169.254.169.254/latest/meta-data' },
    });
    const id = await server.createHuman('dev@acme.example', PASSWORD);
    const browser = new TestBrowser();
    await codeFlow(browser, {
      issuer: server.issuer,
      clientId: other.clientId,
      redirectUri: CALLBACK,
      scope: 'openid',
      credentials: { email: 'dev@acme.example', password: PASSWORD },
    });
    await api(`/principals/${id}/sessions`, { method: 'DELETE' });
    // The queued logout is tried and refused by the address policy: wait for its recorded error, not for a time.
    let row: { last_error: string | null } | undefined;
    while (!row?.last_error) {
      await new Promise((r) => setTimeout(r, 50));
      row = (
        await server.runtime.db.query<{ last_error: string | null }>(
          "SELECT last_error FROM backchannel_logouts WHERE reason = 'session_ended' ORDER BY id DESC LIMIT 1",
        )
      ).rows[0];
    }
    assert.match(row.last_error, /link-local.*metadata/);
  });
});
