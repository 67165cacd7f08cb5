import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

const definition = (widgets: unknown[] = []) => ({
  layout: { type: 'grid', columns: 12, rowHeight: 30 },
  dataSources: [{ id: 1 }],
  widgets,
});
const widget = {
  id: 'w1',
  type: 'table',
  title: 'Orders',
  position: { x: 0, y: 0, w: 6, h: 4 },
  dataSourceId: 1,
  query: 'SELECT 1',
};

describe('dashboards', () => {
  let s: DashboardServer;
  let editor: SignedIn;
  let viewer: SignedIn;
  before(async () => {
    s = await startDashboard('dashboards');
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
  });
  after(async () => s?.close());

  test("create answers 201 with exactly the document's fields; get returns the definition and an ETag", async () => {
    const r = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'sales', title: 'Sales', description: 'Monthly sales', definition: definition([widget]) },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), ['createdAt', 'id', 'slug', 'title', 'updatedAt']);
    assert.equal(r.body.slug, 'sales');
    const got = await s.request('GET', `/api/v1/dashboards/${r.body.id}`, { as: viewer });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.definition, definition([widget]));
    assert.equal(got.body.description, 'Monthly sales');
    assert.equal(got.body.version, 1);
    assert.equal(got.headers.etag, `"${r.body.id}-1"`);
    const again = await s.request('GET', `/api/v1/dashboards/${r.body.id}`, {
      as: viewer,
      headers: { 'if-none-match': got.headers.etag as string },
    });
    assert.equal(again.status, 304);
  });

  test('a slug is unique per tenant (409 CONFLICT) but free in another tenant', async () => {
    const body = { slug: 'dup', title: 'One', definition: definition() };
    assert.equal((await s.request('POST', '/api/v1/dashboards', { as: editor, body })).status, 201);
    const second = await s.request('POST', '/api/v1/dashboards', { as: editor, body });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'CONFLICT');
    const other = await s.signIn({ tenant: 'globex', role: 'editor' });
    assert.equal((await s.request('POST', '/api/v1/dashboards', { as: other, body })).status, 201);
    // Renaming onto a taken slug is a conflict too.
    const third = await s.request('POST', '/api/v1/dashboards', { as: editor, body: { ...body, slug: 'dup-2' } });
    const rename = await s.request('PUT', `/api/v1/dashboards/${third.body.id}`, { as: editor, body: { slug: 'dup' } });
    assert.equal(rename.status, 409);
  });

  test('every field of create wrong in turn is 400 VALIDATION_ERROR', async () => {
    const good = { slug: 'ok-slug', title: 'T', description: 'D', definition: definition([widget]) };
    const bad: [string, unknown][] = [
      ['slug missing', { ...good, slug: undefined }],
      ['slug upper case', { ...good, slug: 'Sales' }],
      ['slug with space', { ...good, slug: 'a b' }],
      ['slug empty', { ...good, slug: '' }],
      ['slug too long', { ...good, slug: 'a'.repeat(101) }],
      ['slug object', { ...good, slug: { a: 1 } }],
      ['title missing', { ...good, title: undefined }],
      ['title empty', { ...good, title: '' }],
      ['title blank', { ...good, title: '   ' }],
      ['title too long', { ...good, title: 'x'.repeat(201) }],
      ['title with NUL', { ...good, title: 'a\u0000b' }],
      ['description too long', { ...good, description: 'x'.repeat(2001) }],
      ['description NUL', { ...good, description: '\u0000' }],
      ['definition missing', { ...good, definition: undefined }],
      ['definition array', { ...good, definition: [] }],
      ['layout missing', { ...good, definition: { dataSources: [], widgets: [] } }],
      ['layout.type missing', { ...good, definition: { ...definition(), layout: { columns: 12, rowHeight: 30 } } }],
      [
        'layout.columns string',
        { ...good, definition: { ...definition(), layout: { type: 'grid', columns: 'twelve', rowHeight: 30 } } },
      ],
      [
        'layout.columns zero',
        { ...good, definition: { ...definition(), layout: { type: 'grid', columns: 0, rowHeight: 30 } } },
      ],
      [
        'layout.columns fraction',
        { ...good, definition: { ...definition(), layout: { type: 'grid', columns: 1.5, rowHeight: 30 } } },
      ],
      ['layout.rowHeight missing', { ...good, definition: { ...definition(), layout: { type: 'grid', columns: 12 } } }],
      [
        'layout.rowHeight negative',
        { ...good, definition: { ...definition(), layout: { type: 'grid', columns: 12, rowHeight: -1 } } },
      ],
      ['dataSources not array', { ...good, definition: { ...definition(), dataSources: {} } }],
      ['dataSources element not object', { ...good, definition: { ...definition(), dataSources: [1] } }],
      ['dataSources duplicate', { ...good, definition: { ...definition(), dataSources: [{ id: 1 }, { id: 1 }] } }],
      ['widgets missing', { ...good, definition: { layout: definition().layout, dataSources: [] } }],
      ['widgets not array', { ...good, definition: { ...definition(), widgets: 'x' } }],
      ['widget without position', { ...good, definition: definition([{ ...widget, position: undefined }]) }],
      [
        'widget beyond the columns',
        { ...good, definition: definition([{ ...widget, position: { x: 10, y: 0, w: 6, h: 4 } }]) },
      ],
      ['widget ids repeated', { ...good, definition: definition([widget, widget]) }],
      ['widget on an unlisted data source', { ...good, definition: definition([{ ...widget, dataSourceId: 2 }]) }],
      ['widget type empty', { ...good, definition: definition([{ ...widget, type: '' }]) }],
      ['widget unknown field', { ...good, definition: definition([{ ...widget, colour: 'red' }]) }],
      ['definition unknown field', { ...good, definition: { ...definition(), extra: true } }],
      ['widget options with NUL', { ...good, definition: definition([{ ...widget, options: { note: 'a\u0000' } }]) }],
      [
        'widget options nested too deep',
        JSON.stringify({ ...good, definition: definition([{ ...widget, options: 'DEEP' }]) }).replace(
          '"DEEP"',
          '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
        ),
      ],
      ['unknown field', { ...good, owner: 'me' }],
      ['not an object', [good]],
    ];
    for (const [name, body] of bad) {
      const r = await s.request('POST', '/api/v1/dashboards', {
        as: editor,
        body: typeof body === 'string' ? body : JSON.parse(JSON.stringify(body)),
      });
      assert.equal(r.status, 400, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', name);
    }
    const malformed = await s.request('POST', '/api/v1/dashboards', { as: editor, body: '{"slug":' });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.code, 'VALIDATION_ERROR');
  });

  test('list: paging, search over title and description, sort and order', async () => {
    const t = await s.signIn({ tenant: 'lister', role: 'editor' });
    const titles = ['Banana report', 'apple stats', 'Cherry board', 'Date plan', 'Elder view'];
    for (const [i, title] of titles.entries()) {
      const r = await s.request('POST', '/api/v1/dashboards', {
        as: t,
        body: {
          slug: `d${i}`,
          title,
          description: i === 3 ? 'about 100% of fruit_sales' : undefined,
          definition: definition(),
        },
      });
      assert.equal(r.status, 201);
    }
    const first = await s.request('GET', '/api/v1/dashboards?perPage=2', { as: t });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.meta, { total: 5, page: 1, perPage: 2, totalPages: 3 });
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.data[0].definition, undefined);
    // created_at descending by default: the newest first.
    assert.deepEqual(
      first.body.data.map((d: any) => d.title),
      ['Elder view', 'Date plan'],
    );
    const last = await s.request('GET', '/api/v1/dashboards?perPage=2&page=3', { as: t });
    assert.deepEqual(
      last.body.data.map((d: any) => d.title),
      ['Banana report'],
    );
    const beyond = await s.request('GET', '/api/v1/dashboards?perPage=2&page=9', { as: t });
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.meta.total, 5);

    const byTitle = await s.request('GET', '/api/v1/dashboards?sort=title', { as: t });
    assert.deepEqual(
      byTitle.body.data.map((d: any) => d.title),
      ['apple stats', 'Banana report', 'Cherry board', 'Date plan', 'Elder view'],
    );
    const byTitleDesc = await s.request('GET', '/api/v1/dashboards?sort=title&order=desc', { as: t });
    assert.equal(byTitleDesc.body.data[0].title, 'Elder view');
    const asc = await s.request('GET', '/api/v1/dashboards?sort=created_at&order=asc', { as: t });
    assert.equal(asc.body.data[0].title, 'Banana report');

    const search = await s.request('GET', '/api/v1/dashboards?search=BOARD', { as: t });
    assert.deepEqual(
      search.body.data.map((d: any) => d.title),
      ['Cherry board'],
    );
    const inDescription = await s.request('GET', `/api/v1/dashboards?search=${encodeURIComponent('100%')}`, { as: t });
    assert.deepEqual(
      inDescription.body.data.map((d: any) => d.title),
      ['Date plan'],
    );
    // % and _ are literal, not wildcards.
    assert.equal((await s.request('GET', '/api/v1/dashboards?search=%25', { as: t })).body.meta.total, 1);
    assert.equal((await s.request('GET', '/api/v1/dashboards?search=_', { as: t })).body.meta.total, 1);
    assert.equal((await s.request('GET', '/api/v1/dashboards?search=zzz', { as: t })).body.meta.total, 0);

    for (const q of [
      'page=0',
      'page=-1',
      'page=x',
      'perPage=0',
      'perPage=101',
      'perPage=1.5',
      'sort=name',
      'sort=id',
      'order=up',
      `search=${'x'.repeat(201)}`,
      'search=%00',
      'unknown=1',
    ]) {
      const r = await s.request('GET', `/api/v1/dashboards?${q}`, { as: t });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', q);
    }
    const max = await s.request('GET', '/api/v1/dashboards?perPage=100', { as: t });
    assert.equal(max.status, 200);
  });

  test('PUT changes only the given fields, bumps the version and ETag; a stale If-Match is 412', async () => {
    const c = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'versioned', title: 'V1', description: 'first', definition: definition() },
    });
    const id = c.body.id;
    const v1 = await s.request('GET', `/api/v1/dashboards/${id}`, { as: editor });
    const put = await s.request('PUT', `/api/v1/dashboards/${id}`, {
      as: editor,
      body: { title: 'V2' },
      headers: { 'if-match': v1.headers.etag as string },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.title, 'V2');
    assert.equal(put.body.description, 'first');
    assert.equal(put.body.slug, 'versioned');
    assert.equal(put.body.version, 2);
    assert.equal(put.headers.etag, `"${id}-2"`);

    const stale = await s.request('PUT', `/api/v1/dashboards/${id}`, {
      as: editor,
      body: { title: 'lost update' },
      headers: { 'if-match': v1.headers.etag as string },
    });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.error.code, 'PRECONDITION_FAILED');
    assert.equal((await s.request('GET', `/api/v1/dashboards/${id}`, { as: editor })).body.title, 'V2');
    assert.equal(
      (
        await s.request('PUT', `/api/v1/dashboards/${id}`, {
          as: editor,
          body: { title: 'x' },
          headers: { 'if-match': 'garbage' },
        })
      ).status,
      412,
    );
    const star = await s.request('PUT', `/api/v1/dashboards/${id}`, {
      as: editor,
      body: { description: null, definition: definition([widget]) },
      headers: { 'if-match': '*' },
    });
    assert.equal(star.status, 200);
    assert.equal(star.body.description, undefined);
    assert.equal(star.body.version, 3);

    for (const body of [
      {},
      { title: '' },
      { slug: 'Bad Slug' },
      { definition: { layout: {} } },
      { id: 5 },
      { version: 1 },
    ]) {
      const r = await s.request('PUT', `/api/v1/dashboards/${id}`, { as: editor, body });
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    assert.equal(
      (await s.request('PUT', '/api/v1/dashboards/999999', { as: editor, body: { title: 'x' } })).status,
      404,
    );
    assert.equal((await s.request('PUT', '/api/v1/dashboards/abc', { as: editor, body: { title: 'x' } })).status, 400);

    const versions = await s.request('GET', `/api/v1/dashboards/${id}/versions`, { as: viewer });
    assert.equal(versions.status, 200);
    assert.deepEqual(
      versions.body.items.map((v: any) => v.version),
      [3, 2, 1],
    );
    const paged = await s.request('GET', `/api/v1/dashboards/${id}/versions?limit=2`, { as: viewer });
    assert.equal(typeof paged.body.next, 'string');
    const rest = await s.request('GET', `/api/v1/dashboards/${id}/versions?limit=2&cursor=${paged.body.next}`, {
      as: viewer,
    });
    assert.deepEqual(
      rest.body.items.map((v: any) => v.version),
      [1],
    );
    const one = await s.request('GET', `/api/v1/dashboards/${id}/versions/1`, { as: viewer });
    assert.equal(one.body.title, 'V1');
    assert.equal(one.body.description, 'first');
    assert.equal((await s.request('GET', `/api/v1/dashboards/${id}/versions/99`, { as: viewer })).status, 404);
    for (const path of [
      `${id}/versions?limit=0`,
      `${id}/versions?limit=101`,
      `${id}/versions?cursor=x`,
      `${id}/versions?sort=x`,
      `${id}/versions/0`,
      `${id}/versions/x`,
      `${id}/versions/99999999999`,
      'x/versions',
    ]) {
      const r = await s.request('GET', `/api/v1/dashboards/${path}`, { as: viewer });
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', path);
    }
    assert.equal((await s.request('POST', `/api/v1/dashboards/${id}/versions/0/restore`, { as: editor })).status, 400);
    assert.equal((await s.request('POST', `/api/v1/dashboards/${id}/versions/77/restore`, { as: editor })).status, 404);

    const restored = await s.request('POST', `/api/v1/dashboards/${id}/versions/1/restore`, {
      as: editor,
      headers: { 'if-match': `"${id}-3"` },
    });
    assert.equal(restored.status, 200);
    assert.equal(restored.body.version, 4);
    assert.equal(restored.body.title, 'V1');
    assert.equal(restored.body.description, 'first');
    assert.deepEqual(restored.body.definition, definition());
    assert.equal(
      (
        await s.request('POST', `/api/v1/dashboards/${id}/versions/1/restore`, {
          as: editor,
          headers: { 'if-match': `"${id}-3"` },
        })
      ).status,
      412,
    );
    const latest = await s.request('GET', `/api/v1/dashboards/${id}/versions?limit=1`, { as: viewer });
    assert.equal(latest.body.items[0].restoredFrom, 1);
  });

  test('delete answers 204, then 404; the audit log names who did what', async () => {
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    const c = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'doomed', title: 'Doomed', definition: definition() },
    });
    const total = (await s.request('GET', '/api/v1/dashboards', { as: editor })).body.meta.total;
    // With the JSON content type some clients put on every request, and no body.
    const del = await s.request('DELETE', `/api/v1/dashboards/${c.body.id}`, {
      as: editor,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(del.status, 204);
    assert.equal((await s.request('GET', '/api/v1/dashboards', { as: editor })).body.meta.total, total - 1);
    assert.equal((await s.request('GET', `/api/v1/dashboards/${c.body.id}`, { as: editor })).status, 404);
    assert.equal((await s.request('DELETE', `/api/v1/dashboards/${c.body.id}`, { as: editor })).status, 404);
    const audit = await s.request('GET', '/api/v1/audit?targetType=dashboard', { as: admin });
    assert.equal(audit.status, 200);
    const mine = audit.body.items.filter((e: any) => e.targetId === String(c.body.id));
    assert.deepEqual(
      mine.map((e: any) => e.action),
      ['dashboard.delete', 'dashboard.create'],
    );
    assert.ok(mine.every((e: any) => e.userId === editor.userId));
  });
  test('tags: trimmed, at most 10 of 1 to 40 characters, unique ignoring case; the list filters by tag', async () => {
    const t = await s.signIn({ tenant: 'tagger', role: 'editor' });
    const create = (slug: string, tags?: unknown) =>
      s.request('POST', '/api/v1/dashboards', { as: t, body: { slug, title: slug, tags, definition: definition() } });
    const a = await create('a', ['  Sales ', 'EU']);
    assert.equal(a.status, 201, JSON.stringify(a.body));
    const got = await s.request('GET', `/api/v1/dashboards/${a.body.id}`, { as: t });
    assert.deepEqual(got.body.tags, ['Sales', 'EU'], 'trimmed, spelling kept');
    assert.deepEqual(
      (await s.request('GET', `/api/v1/dashboards/${(await create('b')).body.id}`, { as: t })).body.tags,
      [],
    );
    const c = await create('c', ['sales']);
    const bad: [string, unknown][] = [
      ['empty', ['']],
      ['blank', ['   ']],
      ['41 characters', ['x'.repeat(41)]],
      ['eleven', Array.from({ length: 11 }, (_, i) => `t${i}`)],
      ['same ignoring case', ['Ops', 'ops']],
      ['same once trimmed', ['ops', ' ops']],
      ['not a string', [1]],
      ['not an array', 'sales'],
      ['NUL', ['a\u0000b']],
    ];
    for (const [why, tags] of bad) {
      for (const r of [
        await create(`bad-${why.replace(/\W/g, '')}`, tags),
        await s.request('PUT', `/api/v1/dashboards/${a.body.id}`, { as: t, body: { tags } }),
      ]) {
        assert.equal(r.status, 400, why);
        assert.equal(r.body.error.code, 'VALIDATION_ERROR', why);
        assert.equal(typeof r.body.error.message, 'string', why);
      }
    }
    assert.equal(
      (
        await create(
          'ten',
          Array.from({ length: 10 }, (_, i) => `${'t'.repeat(39)}${i}`),
        )
      ).status,
      201,
      'ten tags of 40 characters',
    );
    const list = async (q: string) =>
      (await s.request('GET', `/api/v1/dashboards?sort=title&${q}`, { as: t })).body as {
        data: { slug: string; tags: string[] }[];
        meta: { total: number };
      };
    const sales = await list('tag=SALES');
    assert.deepEqual(
      sales.data.map((d) => d.slug),
      ['a', 'c'],
      'any case',
    );
    assert.equal(sales.meta.total, 2);
    assert.deepEqual(
      (await list(`tag=${encodeURIComponent(' eu ')}`)).data.map((d) => d.slug),
      ['a'],
    );
    assert.equal((await list('tag=nothing')).meta.total, 0);
    // A PUT without tags keeps them; with tags replaces them (and is a new version); [] removes them.
    await s.request('PUT', `/api/v1/dashboards/${c.body.id}`, { as: t, body: { title: 'C!' } });
    assert.deepEqual((await s.request('GET', `/api/v1/dashboards/${c.body.id}`, { as: t })).body.tags, ['sales']);
    const put = await s.request('PUT', `/api/v1/dashboards/${c.body.id}`, { as: t, body: { tags: ['Ops'] } });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.tags, ['Ops']);
    assert.deepEqual(
      (await list('tag=sales')).data.map((d) => d.slug),
      ['a'],
    );
    assert.deepEqual(
      (await s.request('PUT', `/api/v1/dashboards/${c.body.id}`, { as: t, body: { tags: [] } })).body.tags,
      [],
    );
    for (const q of ['tag=', `tag=${'x'.repeat(41)}`, 'tag=%00', 'favourites=maybe']) {
      const r = await s.request('GET', `/api/v1/dashboards?${q}`, { as: t });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', q);
    }
    // Another tenant's tags are not listed.
    const other = await s.signIn({ tenant: 'tagger-2', role: 'editor' });
    assert.equal((await s.request('GET', '/api/v1/dashboards?tag=sales', { as: other })).body.meta.total, 0);
  });

  test("favourites are each person's own: PUT and DELETE are idempotent, the list marks and filters them", async () => {
    const me = await s.signIn({ tenant: 'faves', role: 'viewer' });
    const author = await s.signIn({ tenant: 'faves', role: 'editor' });
    const ids: number[] = [];
    for (const slug of ['one', 'two', 'three']) {
      const r = await s.request('POST', '/api/v1/dashboards', {
        as: author,
        body: { slug, title: slug, definition: definition() },
      });
      ids.push(r.body.id);
    }
    const [one, two] = ids as [number, number];
    const before = await s.request('GET', `/api/v1/dashboards/${two}`, { as: me });
    for (let i = 0; i < 2; i++) {
      const r = await s.request('PUT', `/api/v1/dashboards/${two}/favourite`, { as: me });
      assert.equal(r.status, 204);
    }
    const list = async (who: typeof me, q = '') =>
      (await s.request('GET', `/api/v1/dashboards?sort=title${q}`, { as: who })).body as {
        data: { slug: string; favourite: boolean }[];
        meta: { total: number };
      };
    assert.deepEqual(
      (await list(me)).data.map((d) => [d.slug, d.favourite]),
      [
        ['one', false],
        ['three', false],
        ['two', true],
      ],
    );
    const mine = await list(me, '&favourites=true');
    assert.deepEqual(
      mine.data.map((d) => d.slug),
      ['two'],
    );
    assert.equal(mine.meta.total, 1);
    assert.equal((await list(author, '&favourites=true')).meta.total, 0, "someone else's favourites are not mine");
    assert.ok((await list(author)).data.every((d) => !d.favourite));
    assert.equal((await list(me, '&favourites=false')).meta.total, 3, 'false is no filter');
    // A favourite is not a change to the dashboard: same version and ETag.
    const after = await s.request('GET', `/api/v1/dashboards/${two}`, { as: me });
    assert.equal(after.headers.etag, before.headers.etag);
    for (let i = 0; i < 2; i++)
      assert.equal((await s.request('DELETE', `/api/v1/dashboards/${two}/favourite`, { as: me })).status, 204);
    assert.equal((await list(me, '&favourites=true')).meta.total, 0);
    // Deleting a dashboard drops it from favourites.
    await s.request('PUT', `/api/v1/dashboards/${one}/favourite`, { as: me });
    await s.request('DELETE', `/api/v1/dashboards/${one}`, { as: author });
    assert.equal((await list(me, '&favourites=true')).meta.total, 0);

    const stranger = await s.signIn({ tenant: 'faves-2', role: 'viewer' });
    for (const [who, path, status, code] of [
      [stranger, `/api/v1/dashboards/${two}/favourite`, 404, 'NOT_FOUND'],
      [me, '/api/v1/dashboards/999999/favourite', 404, 'NOT_FOUND'],
      [me, `/api/v1/dashboards/${one}/favourite`, 404, 'NOT_FOUND'],
      [me, '/api/v1/dashboards/abc/favourite', 400, 'VALIDATION_ERROR'],
    ] as const) {
      for (const method of ['PUT', 'DELETE'] as const) {
        const r = await s.request(method, path, { as: who });
        assert.equal(r.status, status, `${method} ${path}`);
        assert.equal(r.body.error.code, code, `${method} ${path}`);
      }
    }
    const anonymous = await s.request('PUT', `/api/v1/dashboards/${two}/favourite`, {});
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
  });
});
