import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { basic, form, startServer, type Server } from '../identity/support.ts';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type SitePage, type TestSite } from './support.ts';

/**
 * What the console's Audits section calls (with a person's access token of identity): API keys a person makes for CI,
 * which speak for them; a run's summary (title, score, failures by impact, progress); and two runs compared.
 */
let identity: Server;
let h: AuditHarness;
let site: TestSite;
let person: string;
let otherPerson: string;
const pages: Record<string, SitePage | string> = {};

async function token(app: { clientId: string; secret: string | undefined }): Promise<string> {
  const res = await form(
    `${identity.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'audits' },
    { authorization: basic(app.clientId, app.secret!) },
  );
  assert.equal(res.status, 200, res.text);
  return res.json.access_token;
}

const BEFORE = page(
  'Shop',
  '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="logo"><input id="q"><a href="/x" id="empty"></a>',
);
// The logo is fixed, the search box still has no label, and a new button without a name appears.
const AFTER = page(
  'Shop',
  '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="logo" alt="Shop"><input id="q"><a href="/x" id="empty"></a><button id="buy"></button>',
);

async function audit(url: string, as: string): Promise<Record<string, any>> {
  const created = await h.call('POST', '/api/v1/audits', { url }, as);
  assert.equal(created.statusCode, 202, created.body);
  return waitForJob(h, created.json().id, ['completed', 'failed'], 60_000, as);
}

before(async () => {
  identity = await startServer('auditconsole', { IDENTITY_EXTRA_SCOPES: 'audits' });
  const resourceServer = await identity.registerApp({
    name: 'Audit service',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  const one = await identity.registerApp({ name: 'Console A', appType: 'machine', allowedScopes: ['audits'] });
  const two = await identity.registerApp({ name: 'Console B', appType: 'machine', allowedScopes: ['audits'] });
  h = await startAudit(
    {
      AUDIT_IDENTITY_URL: identity.issuer,
      AUDIT_IDENTITY_CLIENT_ID: resourceServer.clientId,
      AUDIT_IDENTITY_CLIENT_SECRET: resourceServer.secret!,
      AUDIT_CONCURRENCY: '1',
    },
    'auditconsole',
  );
  person = await token(one);
  otherPerson = await token(two);
  pages['/'] = BEFORE;
  pages['/other'] = page('Other', '<p>Fine</p>');
  site = await serveSite(pages);
});

after(async () => {
  await site?.close();
  await h?.close();
  await identity?.close();
});

describe('API keys made in the console', () => {
  test('a person makes a key (shown once), lists it without the key, runs an audit with it: the run is theirs', async () => {
    const made = await h.call('POST', '/api/v1/keys', { name: 'GitHub Actions' }, person);
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(made.headers['cache-control'], 'no-store');
    const key = made.json();
    assert.match(key.key, /^ak_/);
    assert.equal(key.name, 'GitHub Actions');
    assert.ok(key.key.startsWith(key.prefix));
    assert.equal(key.revokedAt, null);

    const listed = await h.call('GET', '/api/v1/keys', undefined, person);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json().items.map((k: any) => [k.id, k.name, 'key' in k]),
      [[key.id, 'GitHub Actions', false]],
    );
    assert.ok(!listed.body.includes(key.key), 'the key is never listed');
    assert.deepEqual((await h.call('GET', '/api/v1/keys', undefined, otherPerson)).json().items, []);
    assert.deepEqual((await h.call('GET', '/api/v1/keys', undefined, h.key)).statusCode, 403, 'a key cannot list keys');

    const viaKey = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/other` }, key.key);
    assert.equal(viaKey.statusCode, 202, viaKey.body);
    const mine = (await h.call('GET', '/api/v1/audits', undefined, person)).json().items.map((j: any) => j.id);
    assert.ok(mine.includes(viaKey.json().id), "the key's run is among the person's");
    assert.equal((await h.call('GET', `/api/v1/audits/${viaKey.json().id}`, undefined, otherPerson)).statusCode, 404);
    await waitForJob(h, viaKey.json().id, ['completed', 'failed'], 60_000, person);

    assert.equal((await h.call('DELETE', `/api/v1/keys/${key.id}`, undefined, otherPerson)).statusCode, 404);
    assert.equal((await h.call('POST', '/api/v1/keys', {}, key.key)).statusCode, 403, 'a key cannot make keys');
    const revoked = await h.call('DELETE', `/api/v1/keys/${key.id}`, undefined, person);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.ok(revoked.json().revokedAt);
    assert.equal((await h.call('GET', '/api/v1/audits', undefined, key.key)).statusCode, 401, 'revoked: refused');
  });

  test('bad inputs: a blank or too long name, an unknown field, an unknown key: clear 400 and 404', async () => {
    for (const body of [{ name: '   ' }, { name: 'x'.repeat(201) }, { name: 'ok', scope: 'all' }, { name: 5 }]) {
      const res = await h.call('POST', '/api/v1/keys', body, person);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(res.json().error.code, 'VALIDATION_ERROR');
    }
    const unnamed = await h.call('POST', '/api/v1/keys', undefined, person);
    assert.equal(unnamed.statusCode, 201, 'a key needs no name');
    assert.equal((await h.call('DELETE', '/api/v1/keys/key_nope', undefined, person)).statusCode, 404);
    assert.equal((await h.call('GET', '/api/v1/keys?cursor=nonsense', undefined, person)).statusCode, 400);
  });
});

describe('runs and their comparison', () => {
  let first: Record<string, any>;
  let second: Record<string, any>;

  before(async () => {
    pages['/'] = BEFORE;
    first = await audit(`${site.origin}/`, person);
    pages['/'] = AFTER;
    second = await audit(`${site.origin}/`, person);
  });

  test('a completed run carries its title, score, failures by impact and progress; the list too', async () => {
    assert.equal(first.status, 'completed', first.error);
    assert.equal(first.title, 'Shop');
    assert.equal(first.score, first.result.score);
    assert.deepEqual(first.stats, first.result.stats);
    assert.deepEqual(first.progress, { pagesDone: 1, pagesMax: 1 });
    const listed = (
      await h.call('GET', `/api/v1/audits?url=${encodeURIComponent(`${site.origin}/`)}`, undefined, person)
    ).json();
    assert.deepEqual(
      listed.items.map((j: any) => [j.id, j.score, j.stats.totalFindings, 'result' in j]),
      [
        [second.id, second.score, second.stats.totalFindings, false],
        [first.id, first.score, first.stats.totalFindings, false],
      ],
    );
  });

  test('compare: the new failure, the fixed one and those remaining, matched by rule, page and element', async () => {
    const res = await h.call('GET', `/api/v1/audits/${second.id}/compare/${first.id}`, undefined, person);
    assert.equal(res.statusCode, 200, res.body);
    const diff = res.json();
    const names = (list: any[]) => list.map((f) => `${f.ruleId} ${f.selector}`).sort();
    assert.deepEqual(names(diff.added), ['button-name #buy', 'target-size #buy']);
    assert.deepEqual(names(diff.fixed), ['image-alt #logo']);
    assert.deepEqual(names(diff.remaining), ['label #q', 'link-name #empty']);
    assert.equal(diff.run.id, second.id);
    assert.equal(diff.base.id, first.id);
    assert.ok(!('result' in diff.run));
  });

  test('compare refuses what cannot be compared, each with a clear error', async () => {
    const other = await audit(`${site.origin}/other`, person);
    const cases: Array<[string, string, number, RegExp]> = [
      [second.id, other.id, 400, /different URLs/],
      [second.id, second.id, 400, /another run/],
      [second.id, 'no-such-run', 404, /no audit no-such-run/],
    ];
    for (const [a, b, status, message] of cases) {
      const res = await h.call('GET', `/api/v1/audits/${a}/compare/${b}`, undefined, person);
      assert.equal(res.statusCode, status, res.body);
      assert.match(res.json().error.message, message);
    }
    const strangers = await h.call('GET', `/api/v1/audits/${second.id}/compare/${first.id}`, undefined, otherPerson);
    assert.equal(strangers.statusCode, 404, "another person's runs are not theirs to compare");
    await h.sql.query("UPDATE jobs SET status = 'failed', result = NULL WHERE id = $1", [other.id]);
    await h.sql.query('UPDATE jobs SET url = $2 WHERE id = $1', [other.id, second.url]);
    const failed = await h.call('GET', `/api/v1/audits/${second.id}/compare/${other.id}`, undefined, person);
    assert.equal(failed.statusCode, 409, failed.body);
    assert.match(failed.json().error.message, /is failed; runs are compared once both have completed/);
  });

  test("a crawl's progress counts its pages as they are recorded, of at most crawl.maxPages", async () => {
    let releaseSecond!: () => void;
    pages['/crawl'] = page('Crawl', '<a href="/crawl-b">Second page</a>');
    pages['/crawl-b'] = { body: page('B', '<p>b</p>'), holdUntil: new Promise<void>((r) => (releaseSecond = r)) };
    const created = await h.call(
      'POST',
      '/api/v1/audits',
      { url: `${site.origin}/crawl`, config: { crawl: { depth: 1, maxPages: 3 } } },
      person,
    );
    assert.equal(created.statusCode, 202, created.body);
    const id = created.json().id;
    await site.requested('/crawl-b');
    // The second page is held: the first is recorded, and the count says so while the job runs.
    // No push: the job is read again, as waitForJob does, until the count moves.
    let job = (await h.call('GET', `/api/v1/audits/${id}`, undefined, person)).json();
    while (job.progress.pagesDone < 1 && job.status === 'running') {
      await new Promise((r) => setTimeout(r, 50));
      job = (await h.call('GET', `/api/v1/audits/${id}`, undefined, person)).json();
    }
    assert.equal(job.status, 'running');
    assert.deepEqual(job.progress, { pagesDone: 1, pagesMax: 3 });
    releaseSecond();
    const done = await waitForJob(h, id, ['completed', 'failed'], 60_000, person);
    assert.equal(done.status, 'completed', done.error);
    assert.deepEqual(done.progress, { pagesDone: 2, pagesMax: 3 });
  });

  test('the OpenAPI document has the comparison and the key routes, with who may call them', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const compare = doc.paths['/api/v1/audits/{id}/compare/{baseId}'].get;
    assert.equal(compare.operationId, 'compareAudits');
    assert.deepEqual(compare.security, [{ apiKey: [] }, { bearer: [] }]);
    assert.deepEqual(Object.keys(compare.responses['200'].content['application/json'].schema.properties).sort(), [
      'added',
      'base',
      'fixed',
      'remaining',
      'run',
    ]);
    for (const [path, method] of [
      ['/api/v1/keys', 'get'],
      ['/api/v1/keys', 'post'],
      ['/api/v1/keys/{id}', 'delete'],
    ] as const)
      assert.deepEqual(doc.paths[path][method].security, [{ bearer: [] }], `${method} ${path}: a token only`);
    const run = doc.paths['/api/v1/audits/{id}'].get.responses['200'].content['application/json'].schema;
    for (const field of ['title', 'score', 'stats', 'progress']) assert.ok(run.properties[field], field);
  });
});
