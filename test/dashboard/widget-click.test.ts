import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { linkProblem } from '../../src/dashboard/dashboards/click.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

/**
 * A widget's click behaviour (`widget.click`): cross-filtering by setting a parameter, or a drill-through link.
 * The definition is checked like the rest of it: 400 VALIDATION_ERROR naming the field.
 */
describe('widget click behaviour in the definition', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let admin: SignedIn;
  let editor: SignedIn;
  let sourceId: number;

  const parameters = [
    { name: 'region', type: 'choice', choices: ['north', 'south'] },
    { name: 'q', type: 'text' },
    { name: 'range', type: 'time_range' },
  ];
  const definition = (click: unknown, type = 'bar') => ({
    layout: { type: 'grid', columns: 12, rowHeight: 40 },
    dataSources: [{ id: sourceId }],
    parameters,
    widgets: [
      {
        id: 'by-region',
        type,
        title: 'By region',
        position: { x: 0, y: 0, w: 6, h: 4 },
        ...(type === 'text'
          ? { options: { markdown: 'Hi' } }
          : { dataSourceId: sourceId, query: 'SELECT region, 1 AS n FROM (VALUES (1)) v(region)' }),
        click,
      },
    ],
  });
  const post = (slug: string, click: unknown, type?: string) =>
    s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug, title: slug, definition: definition(click, type) },
    });

  before(async () => {
    target = await freshPostgres('widgetclick');
    s = await startDashboard('widgetclick');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    assert.equal(ds.status, 201, JSON.stringify(ds.body));
    sourceId = ds.body.id;
  });
  after(async () => {
    await s?.close();
    await target?.drop();
  });

  test('a click that sets a parameter or opens a link is stored, answered, exported and given to a public link', async () => {
    const good: [string, Record<string, unknown>, string?][] = [
      ['set-choice', { setParameter: 'region' }],
      ['set-text-column', { setParameter: 'q', column: 'region' }],
      ['table', { setParameter: 'q', column: 'region' }, 'table'],
      ['pie', { setParameter: 'region' }, 'pie'],
      ['link-https', { link: 'https://crm.example.com/regions/{value}?from=dash' }],
      ['link-query', { link: 'http://crm.example.com?region={value}', column: 'region' }],
      ['link-console', { link: '/dashboards/7?var-region={value}' }],
      ['link-root', { link: '/{value}' }],
    ];
    for (const [slug, click, type] of good) {
      const r = await post(slug, click, type);
      assert.equal(r.status, 201, `${slug}: ${JSON.stringify(r.body)}`);
      const got = await s.request('GET', `/api/v1/dashboards/${r.body.id}`, { as: editor });
      assert.deepEqual(got.body.definition.widgets[0].click, click, slug);
    }
    // The export keeps it (and an import takes it back), and a visitor with the public link gets it: it holds no SQL.
    const d = await post('shared', { setParameter: 'region', column: 'region' });
    const exported = await s.request('GET', `/api/v1/dashboards/${d.body.id}/export`, { as: editor });
    assert.deepEqual(exported.body.dashboards[0].definition.widgets[0].click, {
      setParameter: 'region',
      column: 'region',
    });
    const share = await s.request('PUT', `/api/v1/dashboards/${d.body.id}/share`, { as: editor });
    const token = new URL(share.body.url).pathname.replace('/public/', '');
    const visitor = await s.request('GET', `/api/v1/public/dashboards/${token}`);
    assert.equal(visitor.status, 200, JSON.stringify(visitor.body));
    assert.deepEqual(visitor.body.definition.widgets[0].click, { setParameter: 'region', column: 'region' });
  });

  test('a bad click is 400 VALIDATION_ERROR naming the field, in the documented shape', async () => {
    const bad: [string, unknown, RegExp, string?][] = [
      ['neither', {}, /widgets\[0\]\.click: give setParameter or link/],
      ['both', { setParameter: 'region', link: 'https://x.example/{value}' }, /give setParameter or link/],
      ['unknown field', { setParameter: 'region', colour: 'red' }, /click/],
      ['not an object', 'region', /click/],
      ['no such parameter', { setParameter: 'country' }, /setParameter: the dashboard has no parameter "country"/],
      ['a time range', { setParameter: 'range' }, /"range" is a time_range/],
      ['empty column', { setParameter: 'region', column: '' }, /column/],
      ['on a text widget', { setParameter: 'region' }, /a text widget has no values/, 'text'],
      ['javascript', { link: 'javascript:alert({value})' }, /click\.link: only http\(s\)/],
      ['data', { link: 'data:text/html,{value}' }, /click\.link/],
      ['value in the host', { link: 'https://{value}.example.com/' }, /whole host before \{value\}/],
      ['value right after the host', { link: 'https://example.com{value}' }, /whole host/],
      ['no value', { link: 'https://example.com/regions' }, /must hold \{value\}/],
      ['another origin by //', { link: '//evil.example/{value}' }, /not \/\/ or/],
      ['value first', { link: '{value}' }, /only http\(s\)/],
      ['too long', { link: `https://example.com/${'a'.repeat(2000)}{value}` }, /link/],
    ];
    for (const [what, click, message, type] of bad) {
      const r = await post('bad', click, type);
      assert.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body), ['error'], what);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', what);
      assert.match(r.body.error.message, message, `${what}: ${r.body.error.message}`);
    }
    // A PUT is checked the same way, and removing the parameter a click sets is refused while the click names it.
    const d = await post('kept', { setParameter: 'q' });
    assert.equal(d.status, 201);
    const dropped = await s.request('PUT', `/api/v1/dashboards/${d.body.id}`, {
      as: editor,
      body: { definition: { ...definition({ setParameter: 'q' }), parameters: [parameters[0]] } },
    });
    assert.equal(dropped.status, 400);
    assert.match(dropped.body.error.message, /no parameter "q"/);
  });

  test('the OpenAPI document describes widget.click, in the dashboards and in the public view', async () => {
    const doc = JSON.stringify((await s.request('GET', '/openapi.json')).body);
    const described = doc.match(/a URL template opened on a click/g) ?? [];
    // The dashboard's answers and bodies, and the public link's answer, each carry the widget's schema.
    assert.ok(described.length >= 2, `described ${described.length} times`);
    assert.match(doc, /the name of a text, choice or query parameter of the dashboard, set to the clicked value/);
  });

  test('link templates: the text before {value} fixes the scheme and host', () => {
    assert.equal(linkProblem('https://a.example/x/{value}/y/{value}'), undefined);
    assert.equal(linkProblem('HTTPS://A.example#{value}'), undefined);
    assert.equal(linkProblem('/queries?name={value}'), undefined);
    assert.match(linkProblem('/\\evil.example/{value}') ?? '', /not \/\/ or/);
    assert.match(linkProblem('ftp://a.example/{value}') ?? '', /only http/);
    assert.match(linkProblem('https://a.example:{value}/') ?? '', /whole host/);
    assert.match(linkProblem('https://a b.example/{value}') ?? '', /only http|valid/);
  });
});
