import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';
import { renderHtmlReport } from '../../src/audit/report/render.ts';

/**
 * A crawl audits each page once however many URLs reach it: the same document under two URLs (`/` and
 * `/index.html`), or a URL whose `<link rel="canonical">` names a page already found, is one page, counted once,
 * and the result says which URLs were merged into it.
 */

let h: AuditHarness;
const sites: TestSite[] = [];

before(async () => {
  h = await startAudit({ AUDIT_MAX_DEPTH: '3', AUDIT_MAX_PAGES: '20' }, 'auditsamepage');
});

after(async () => {
  for (const s of sites) await s.close();
  await h?.close();
});

async function site(pages: Parameters<typeof serveSite>[0]): Promise<TestSite> {
  const s = await serveSite(pages);
  sites.push(s);
  return s;
}

async function crawl(s: TestSite, start = '/', depth = 2): Promise<any> {
  const res = await h.call('POST', '/audit', {
    url: `${s.origin}${start}`,
    crawl: { enabled: true, depth, maxPages: 20 },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const paths = (s: TestSite, r: any) => r.pages.map((p: any) => p.url.replace(s.origin, ''));
const merged = (s: TestSite, p: any) => p.mergedUrls.map((m: any) => [m.url.replace(s.origin, ''), m.reason]);

test('/ and /index.html serving the same document are one page: its problems are counted once', async () => {
  const home = page(
    'Home',
    '<a href="/index.html">Home again</a> <a href="/about">About</a> <img src="/logo.png"> <img src="/banner.png">',
  );
  const s = await site({
    '/': home,
    '/index.html': home,
    '/about': page('About', '<a href="/">Home</a> <a href="/index.html">Index</a>'),
  });
  const r = await crawl(s);
  assert.deepEqual(paths(s, r), ['/', '/about'], JSON.stringify(r.pages.map((p: any) => p.requestedUrl)));
  assert.deepEqual(merged(s, r.pages[0]), [['/index.html', 'same-content']]);
  assert.deepEqual(r.pages[1].mergedUrls, []);
  assert.equal(r.stats.totalPages, 2);
  assert.equal(r.findings.filter((f: any) => f.ruleId === 'image-alt').length, 2, 'two images, not four');
  assert.equal(r.stats.critical, 2);
  assert.equal(r.rules.find((rule: any) => rule.ruleId === 'image-alt').failedPages, 1);

  // Started at /index.html, that is the page kept, and / is the one merged into it.
  const fromIndex = await crawl(s, '/index.html');
  assert.deepEqual(paths(s, fromIndex), ['/index.html', '/about']);
  assert.deepEqual(merged(s, fromIndex.pages[0]), [['/', 'same-content']]);

  const report = renderHtmlReport(r);
  assert.ok(
    report.includes(`Also found as <a href="${s.origin}/index.html">${s.origin}/index.html</a> (same document)`),
    'the HTML report names the merged URL',
  );
});

test('pages built by a script from their URL are compared as rendered, so an app shell serving many routes is many pages', async () => {
  // The server sends the same bytes for every route; the page's script writes what the route shows.
  const shell = page(
    'App',
    '<div id="view"></div><nav><a href="/app/one">One</a> <a href="/app/two">Two</a></nav><script>document.getElementById("view").textContent = "Route " + location.pathname;</script>',
  );
  const s = await site({ '/app/one': shell, '/app/two': shell });
  const r = await crawl(s, '/app/one', 1);
  assert.deepEqual(paths(s, r), ['/app/one', '/app/two']);
  assert.ok(r.pages.every((p: any) => p.mergedUrls.length === 0));
});

test('a URL whose canonical names a page already found is that page, in either order; a URL named canonical is not even visited', async () => {
  const s = await site({
    '/': page(
      'Shop',
      '<a href="/products">Products</a> <a href="/products?sort=price">By price</a> <a href="/article?print=1">Article, printable</a>',
    ),
    '/start-sorted': page(
      'Shop, sorted first',
      '<a href="/products?sort=price">By price</a> <a href="/products">Products</a>',
    ),
    '/products': page('Products', '<ul><li>Apples</li><li>Pears</li></ul> <img src="/p.png">'),
    // Another order of the same list: a different document, which only its canonical link makes the same page.
    '/products?sort=price': page(
      'Products',
      '<ul><li>Pears</li><li>Apples</li></ul> <img src="/p.png">',
      '<link rel="canonical" href="/products">',
    ),
    // rel is a list of tokens, in any case; the page it names is found only through it.
    '/article?print=1': page(
      'Article',
      '<p>Text</p> <a href="/article">Article</a>',
      `<link rel="Bookmark CANONICAL" href="/article">`,
    ),
    '/article': page('Article, the page itself', '<p>Text</p>'),
  });
  const r = await crawl(s);
  assert.deepEqual(paths(s, r), ['/', '/products', '/article?print=1']);
  assert.deepEqual(merged(s, r.pages[1]), [['/products?sort=price', 'canonical']]);
  assert.deepEqual(merged(s, r.pages[2]), [['/article', 'canonical']]);
  assert.ok(!s.hits.includes('/article'), 'the URL a recorded page names canonical is not loaded again');
  assert.equal(r.findings.filter((f: any) => f.ruleId === 'image-alt').length, 1);

  // The sorted URL found first: it is kept, and /products, which it names canonical, is merged into it.
  const sorted = await crawl(s, '/start-sorted', 1);
  assert.deepEqual(paths(s, sorted), ['/start-sorted', '/products?sort=price']);
  assert.deepEqual(merged(s, sorted.pages[1]), [['/products', 'canonical']]);
  assert.equal(sorted.findings.filter((f: any) => f.ruleId === 'image-alt').length, 1);
});

test('a canonical link to another site, or to a page that could not be audited, does not merge', async () => {
  const other = await site({ '/': page('Syndicated original', '<p>Text</p>') });
  const s = await site({
    '/': page('Home', '<a href="/gone">Gone</a> <a href="/copy">Copy</a> <a href="/orphan">Orphan</a>'),
    '/copy': page('Copy', '<p>Text</p>', `<link rel="canonical" href="${other.origin}/">`),
    '/orphan': page('Orphan', '<p>Points at a broken page</p>', '<link rel="canonical" href="/gone">'),
  });
  const r = await crawl(s, '/', 1);
  assert.deepEqual(paths(s, r), ['/', '/gone', '/copy', '/orphan']);
  assert.deepEqual(
    r.pages.map((p: any) => p.status),
    ['audited', 'failed', 'audited', 'audited'],
  );
  assert.ok(r.pages.every((p: any) => p.mergedUrls.length === 0));
  assert.equal(other.hits.length, 0, 'the other site is never visited');
});
