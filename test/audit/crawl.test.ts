import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type SitePage, type TestSite } from './support.ts';
import { parseSitemap } from '../../src/audit/crawl/sitemap.ts';
import { normalizeUrl } from '../../src/audit/crawl/normalize.ts';

let h: AuditHarness;
let site: TestSite;
let external: TestSite;
let order: TestSite;
const more: TestSite[] = [];
let releaseFirst: () => void = () => {};

before(async () => {
  h = await startAudit({ AUDIT_MAX_DEPTH: '3', AUDIT_MAX_PAGES: '20' }, 'auditcrawl');
  // A second site on another loopback address: allowed by the operator, but another origin, so never followed.
  external = await serveSite({ '/': page('Elsewhere', '<p>elsewhere</p>') }, '127.0.0.1');
  const ext = external.origin;
  const pages: Record<string, SitePage | string> = {
    '/robots.txt': {
      body: 'User-agent: *\nDisallow: /private\nSitemap: /sitemap-index.xml\n',
      headers: { 'content-type': 'text/plain' },
    },
    '/': page(
      'Home',
      `<a href="/a">A</a> <a href="/b#section">B</a> <a href="/b">B again</a> <a href="/private/secret">Private</a> <a href="${ext}/">Elsewhere</a> <a href="/file.json">Data</a> <a href="/broken">Broken</a> <a href="/gone">Gone</a> <a href="mailto:x@example.com">Mail</a>`,
    ),
    '/a': page('A', '<a href="/">Home</a> <a href="/b">B</a> <a href="/a/deeper">Deeper</a>'),
    '/b': page('B', '<a href="/a">A</a> <img src="/x.png">'),
    '/a/deeper': page('Deeper', '<a href="/a/deeper/still">Still deeper</a>'),
    '/a/deeper/still': page('Still', '<p>three hops away</p>'),
    '/only-in-sitemap': page('Sitemap only', '<p>linked from nowhere</p>'),
    '/private/secret': page('Secret', '<p>robots say no</p>'),
    '/file.json': { body: '{"a":1}', headers: { 'content-type': 'application/json' } },
    '/gone': { status: 404, body: '404 page not found', headers: { 'content-type': 'text/plain; charset=utf-8' } },
  };
  site = await serveSite(pages);
  // The sitemaps name absolute URLs of this very site, known only once it listens.
  const xml = { 'content-type': 'application/xml' };
  pages['/sitemap-index.xml'] = {
    headers: xml,
    body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.origin}/sitemap-pages.xml</loc></sitemap></sitemapindex>`,
  };
  pages['/sitemap-pages.xml'] = {
    headers: xml,
    body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.origin}/only-in-sitemap</loc></url><url><loc>${site.origin}/</loc></url><url><loc>${ext}/from-sitemap</loc></url></urlset>`,
  };
});

after(async () => {
  releaseFirst();
  await order?.close();
  for (const m of more) await m.close();
  await site?.close();
  await external?.close();
  await h?.close();
});

test('sitemaps and sitemap indexes are read; URLs are normalised', () => {
  const index = parseSitemap(
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc> https://x.test/a.xml </loc></sitemap><sitemap><loc>https://x.test/b.xml</loc></sitemap></sitemapindex>',
  );
  assert.deepEqual(index, { pages: [], sitemaps: ['https://x.test/a.xml', 'https://x.test/b.xml'] });
  const set = parseSitemap('<urlset><url><loc>https://x.test/&amp;p</loc></url></urlset>');
  assert.deepEqual(set, { pages: ['https://x.test/&p'], sitemaps: [] });
  assert.deepEqual(parseSitemap('<not xml'), { pages: [], sitemaps: [] });
  assert.equal(normalizeUrl('HTTP://Example.COM:80/a#frag'), 'http://example.com/a');
  assert.equal(normalizeUrl('https://example.com'), 'https://example.com/');
  assert.equal(normalizeUrl('mailto:x@example.com'), null);
  assert.equal(normalizeUrl('/x?q=1#y', 'https://example.com/a/'), 'https://example.com/x?q=1');
});

test('a crawl goes breadth-first over same-origin links and sitemap pages, honours robots.txt, skips non-HTML, records broken pages and goes on', async () => {
  const res = await h.call('POST', '/audit', {
    url: `${site.origin}/`,
    crawl: { enabled: true, depth: 2, maxPages: 20 },
  });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  const urls = r.pages.map((p: any) => p.url.replace(site.origin, ''));
  assert.deepEqual(
    new Set(urls),
    new Set(['/', '/only-in-sitemap', '/a', '/b', '/broken', '/gone', '/a/deeper']),
    JSON.stringify(urls),
  );
  assert.equal(urls[0], '/', 'the start page first');
  assert.equal(urls.length, new Set(urls).size, 'each page once, though links loop and repeat with fragments');
  const depth = Object.fromEntries(r.pages.map((p: any) => [p.url.replace(site.origin, ''), p.depth]));
  assert.deepEqual(depth, {
    '/': 0,
    '/only-in-sitemap': 1,
    '/a': 1,
    '/b': 1,
    '/broken': 1,
    '/gone': 1,
    '/a/deeper': 2,
  });
  assert.ok(!site.hits.includes('/private/secret'), 'robots.txt disallows /private');
  assert.ok(!site.hits.includes('/a/deeper/still'), 'three hops is beyond depth 2');
  assert.equal(external.hits.length, 0, 'another origin is never visited, from a link or a sitemap');
  assert.ok(site.hits.includes('/file.json'), 'the JSON link was tried');
  assert.ok(!urls.includes('/file.json'), 'and skipped as not HTML');
  const broken = r.pages.find((p: any) => p.url.endsWith('/broken'));
  assert.equal(broken.status, 'failed');
  assert.equal(broken.httpStatus, 404);
  assert.match(broken.error, /HTTP 404/);
  // A 404 in plain text is a broken page too, not a skipped non-HTML answer.
  const gone = r.pages.find((p: any) => p.url.endsWith('/gone'));
  assert.equal(gone.status, 'failed');
  assert.equal(gone.httpStatus, 404);
  assert.equal(r.stats.totalPages, 7);
  assert.equal(r.stats.failedPages, 2);
  assert.equal(r.conformant, false);
  assert.ok(r.findings.some((f: any) => f.ruleId === 'image-alt' && f.pageUrl === `${site.origin}/b`));
});

test('maxPages bounds a crawl, and depth 0 audits the start page and the sitemap pages only', async () => {
  const few = (
    await h.call('POST', '/audit', { url: `${site.origin}/`, crawl: { enabled: true, maxPages: 2 } })
  ).json();
  assert.equal(few.pages.length, 2);
  const flat = (await h.call('POST', '/audit', { url: `${site.origin}/`, crawl: { enabled: true, depth: 0 } })).json();
  assert.deepEqual(
    flat.pages.map((p: any) => p.url.replace(site.origin, '')),
    ['/', '/only-in-sitemap'],
  );
});

test('crawl limits without enabled crawl (a crawl object means crawl); enabled: false audits the given page only', async () => {
  const limited = (await h.call('POST', '/audit', { url: `${site.origin}/`, crawl: { depth: 1, maxPages: 3 } })).json();
  assert.equal(limited.config.crawl.enabled, true);
  assert.equal(limited.pages.length, 3);
  const off = (
    await h.call('POST', '/audit', { url: `${site.origin}/`, crawl: { enabled: false, depth: 1, maxPages: 3 } })
  ).json();
  assert.equal(off.pages.length, 1);
});

test('without crawl only the given page is audited', async () => {
  const r = (await h.call('POST', '/audit', { url: `${site.origin}/a` })).json();
  assert.equal(r.pages.length, 1);
  assert.equal(r.config.crawl.enabled, false);
});

test('crawl bounds beyond the configured ceilings are refused with 400 naming the ceiling', async () => {
  const deep = await h.call('POST', '/audit', { url: `${site.origin}/`, crawl: { enabled: true, depth: 4 } });
  assert.equal(deep.statusCode, 400);
  assert.match(deep.json().error.message, /crawl\.depth must be at most 3 .*AUDIT_MAX_DEPTH/);
  const many = await h.call('POST', '/api/v1/audits', {
    url: `${site.origin}/`,
    config: { crawl: { enabled: true, maxPages: 21 } },
  });
  assert.equal(many.statusCode, 400);
  assert.match(many.json().error.message, /crawl\.maxPages must be at most 20/);
});

test('pages audited at once still come out in breadth-first order, whichever finishes first', async () => {
  // /first answers only once /third has been asked for, so the later pages finish before it.
  const firstHeld = new Promise<void>((resolve) => {
    releaseFirst = resolve;
  });
  order = await serveSite({
    '/': page('Start', '<a href="/first">1</a> <a href="/second">2</a> <a href="/third">3</a>'),
    '/first': { body: page('First', '<a href="/from-first">deeper</a>'), holdUntil: firstHeld },
    '/second': page('Second', '<a href="/from-second">deeper</a>'),
    '/third': page('Third', '<p>third</p>'),
    '/from-first': page('From first', '<p>x</p>'),
    '/from-second': page('From second', '<p>y</p>'),
  });
  void order.requested('/third').then(() => releaseFirst());
  const r = (
    await h.call('POST', '/audit', { url: `${order.origin}/`, crawl: { enabled: true, depth: 2, maxPages: 20 } })
  ).json();
  assert.deepEqual(
    r.pages.map((p: any) => p.url.replace(order.origin, '')),
    ['/', '/first', '/second', '/third', '/from-first', '/from-second'],
  );
  // Had the pages not been loaded together (AUDIT_PAGE_CONCURRENCY, default 4), /first would have hit the page limit.
  assert.ok(
    r.pages.every((p: any) => p.status === 'audited'),
    JSON.stringify(r.pages.map((p: any) => [p.url, p.error])),
  );
  // maxPages holds with several pages in flight: exactly that many, the first ones in crawl order.
  const four = (
    await h.call('POST', '/audit', { url: `${order.origin}/`, crawl: { enabled: true, depth: 2, maxPages: 4 } })
  ).json();
  assert.deepEqual(
    four.pages.map((p: any) => p.url.replace(order.origin, '')),
    ['/', '/first', '/second', '/third'],
  );
});

test('a start page that redirects to another origin moves the crawl there; a found page that redirects off the site is left out', async () => {
  const elsewhere = await serveSite({ '/': page('Elsewhere', '<img src="/x.png">') });
  more.push(elsewhere);
  const real = await serveSite({
    '/robots.txt': { body: 'User-agent: *\nDisallow: /private\n', headers: { 'content-type': 'text/plain' } },
    '/': page('Real home', '<a href="/x">X</a> <a href="/away">Away</a> <a href="/private/p">Private</a>'),
    '/x': page('X', '<p>x</p>'),
    '/away': { status: 302, headers: { location: `${elsewhere.origin}/` }, body: '' },
    '/private/p': page('Private', '<p>robots say no</p>'),
  });
  more.push(real);
  const landing = await serveSite({ '/': { status: 301, headers: { location: `${real.origin}/` }, body: '' } });
  more.push(landing);
  const r = (
    await h.call('POST', '/audit', { url: `${landing.origin}/`, crawl: { enabled: true, depth: 2, maxPages: 20 } })
  ).json();
  assert.deepEqual(
    r.pages.map((p: any) => p.url),
    [`${real.origin}/`, `${real.origin}/x`],
    JSON.stringify(r.pages),
  );
  assert.equal(r.pages[0].requestedUrl, `${landing.origin}/`);
  assert.ok(real.hits.includes('/robots.txt'), 'the robots.txt of the site landed on is read');
  assert.ok(!real.hits.includes('/private/p'), 'and honoured');
  assert.ok(real.hits.includes('/away'), 'the link was tried');
  assert.ok(
    !r.findings.some((f: any) => f.pageUrl.startsWith(elsewhere.origin)),
    'the page it redirected to is not in the result',
  );
  assert.equal(r.stats.totalPages, 2);
});

test('a found URL that redirects to a page already in the result is left out, in either order', async () => {
  // /old redirects to /contrast, which is linked too: both orders of the links, pages loaded at once.
  const dup = await serveSite({
    '/': page('Home', '<a href="/contrast">Contrast</a> <a href="/old">Old</a> <a href="/older">Older</a>'),
    '/other': page('Other', '<a href="/old">Old</a> <a href="/contrast">Contrast</a>'),
    '/contrast': page('Contrast', '<img src="/x.png">'),
    '/old': { status: 301, headers: { location: '/contrast' }, body: '' },
    '/older': { status: 302, headers: { location: '/old' }, body: '' },
  });
  more.push(dup);
  for (const start of ['/', '/other']) {
    const r = (
      await h.call('POST', '/audit', { url: `${dup.origin}${start}`, crawl: { enabled: true, depth: 1, maxPages: 20 } })
    ).json();
    const urls = r.pages.map((p: any) => p.url.replace(dup.origin, ''));
    assert.deepEqual(
      urls,
      [start, '/contrast'],
      `${start}: ${JSON.stringify(r.pages.map((p: any) => [p.requestedUrl, p.url]))}`,
    );
    assert.equal(r.stats.totalPages, 2);
    assert.deepEqual(
      r.pages[1].mergedUrls.map((m: any) => [m.url.replace(dup.origin, ''), m.reason]),
      start === '/'
        ? [
            ['/old', 'same-url'],
            ['/older', 'same-url'],
          ]
        : [['/contrast', 'same-url']],
      'the result names the URLs that reached the page',
    );
    assert.equal(
      r.findings.filter((f: any) => f.ruleId === 'image-alt').length,
      1,
      'the image on /contrast is one failing element, not one per URL reaching it',
    );
  }
});

test("Crawl-delay for PlatformAudit spaces the starts of the crawl's pages, measured where they arrive", async () => {
  const slow = await serveSite({
    '/robots.txt': {
      body: 'User-agent: PlatformAudit\nCrawl-delay: 2\nDisallow: /private\n',
      headers: { 'content-type': 'text/plain' },
    },
    '/': page('Start', '<a href="/a">A</a> <a href="/private/p">Private</a> <a href="/b">B</a> <a href="/c">C</a>'),
    '/a': page('A', '<p>a</p>'),
    '/b': page('B', '<p>b</p>'),
    '/c': page('C', '<p>c</p>'),
    '/private/p': page('Private', '<p>robots say no</p>'),
  });
  more.push(slow);
  const r = (
    await h.call('POST', '/audit', { url: `${slow.origin}/`, crawl: { enabled: true, depth: 1, maxPages: 10 } })
  ).json();
  assert.deepEqual(
    r.pages.map((p: any) => p.url.replace(slow.origin, '')),
    ['/', '/a', '/b', '/c'],
  );
  const starts = slow.arrivals.filter((a) => ['/', '/a', '/b', '/c'].includes(a.path));
  assert.deepEqual(
    starts.map((a) => a.path),
    ['/', '/a', '/b', '/c'],
    'one request per page, in crawl order',
  );
  // /a, /b and /c are found together on / and, with AUDIT_PAGE_CONCURRENCY 4, would otherwise all start at once.
  // The gap is measured at arrival, so it carries each navigation's own latency, which varied by ~400 ms under CI's
  // load (a 1 s delay with an 800 ms margin failed there once): half the 2 s delay is the margin, far from the
  // near-zero gaps of pages started together.
  const gaps = starts.slice(1).map((a, i) => a.at - starts[i]!.at);
  for (const gap of gaps)
    assert.ok(gap >= 1000, `pages arrived ${gaps.map(Math.round).join(', ')} ms apart; Crawl-delay asks for 2000`);
  assert.ok(!slow.hits.includes('/private/p'), 'Disallow beside the delay still holds');
});
