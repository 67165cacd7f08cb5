import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { basic, form, managementApi, startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow } from '../support/code-flow.ts';

/**
 * An application's claim mappings: extra claims in its ID and access tokens, read from the person's profile and
 * metadata by a declared list (no code runs), each in the tokens it names; registered claims cannot be mapped.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PASSWORD = 'correct horse battery staple';
const CALLBACK = 'http://localhost:8765/callback';

describe('claim mappings', () => {
  let server: Server;
  let app: { id: string; clientId: string };
  let resource: { clientId: string; secret: string | undefined };
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );

  before(async () => {
    server = await startServer('idclaims', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
    app = await server.registerApp({
      name: 'Portal',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid', 'email'],
      firstParty: true,
    });
    resource = await server.registerApp({ name: 'API', appType: 'machine', resourceServer: true });
  });
  after(async () => server?.close());

  test('bad mappings are refused with the reason', async () => {
    for (const [mappings, reason] of [
      [[{ claim: 'sub', source: 'email', tokens: ['id_token'] }], /"sub" is a registered or built-in claim/],
      [[{ claim: 'org_role', source: 'organization.role', tokens: ['id_token'] }], /"org_role" is a registered/],
      [[{ claim: 'secret', source: 'password', tokens: ['id_token'] }], /source "password" is not one of/],
      [[{ claim: 'x', source: 'metadata.', tokens: ['id_token'] }], /source "metadata\." is not one of/],
      [
        [
          { claim: 'team', source: 'metadata.team', tokens: ['id_token'] },
          { claim: 'team', source: 'name', tokens: ['access_token'] },
        ],
        /"team" is mapped twice/,
      ],
      [[{ claim: '1st', source: 'name', tokens: ['id_token'] }], /must be a letter/],
      [[{ claim: 'team', source: 'name', tokens: [] }], /tokens/],
    ] as const) {
      const r = await api(`/applications/${app.id}`, { method: 'PATCH', body: { claim_mappings: mappings } });
      assert.equal(r.status, 400, JSON.stringify(mappings));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, reason);
    }
  });

  test('mapped claims reach the tokens they name, from the profile and nested metadata', async () => {
    const set = await api(`/applications/${app.id}`, {
      method: 'PATCH',
      body: {
        claim_mappings: [
          { claim: 'department', source: 'metadata.department', tokens: ['id_token', 'access_token'] },
          { claim: 'badge_level', source: 'metadata.badge.level', tokens: ['id_token'] },
          { claim: 'https://acme.example/email', source: 'email', tokens: ['access_token'] },
          { claim: 'cost_center', source: 'metadata.cost_center', tokens: ['id_token'] },
        ],
      },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.claim_mappings.length, 4);
    const id = await server.createHuman('rosa@acme.example', PASSWORD);
    const meta = await api(`/principals/${id}`, {
      method: 'PATCH',
      body: { metadata: { department: 'R&D', badge: { level: 3 } } },
    });
    assert.equal(meta.status, 200, JSON.stringify(meta.body));

    const got = await codeFlow(new TestBrowser(), {
      issuer: server.issuer,
      clientId: app.clientId,
      redirectUri: CALLBACK,
      scope: 'openid email',
      credentials: { email: 'rosa@acme.example', password: PASSWORD },
    });
    assert.equal(got.status, 200, JSON.stringify(got.tokens));
    const idToken = decodeJwt(got.tokens.id_token);
    assert.equal(idToken.sub, id);
    assert.equal(idToken.department, 'R&D');
    assert.equal(idToken.badge_level, 3);
    assert.equal('https://acme.example/email' in idToken, false, 'an access-token claim is not in the ID token');
    assert.equal('cost_center' in idToken, false, 'a metadata key the person lacks gives no claim');

    const introspected = await form(
      `${server.issuer}/oauth/introspect`,
      { token: got.tokens.access_token },
      { authorization: basic(resource.clientId, resource.secret!) },
    );
    assert.equal(introspected.status, 200);
    assert.equal(introspected.json.active, true);
    assert.equal(introspected.json.department, 'R&D');
    assert.equal(introspected.json['https://acme.example/email'], 'rosa@acme.example');
    assert.equal('badge_level' in introspected.json, false, 'an ID-token claim is not in the access token');
  });
});
