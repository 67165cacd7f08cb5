import http from 'node:http';
import type { AddressInfo } from 'node:net';

// The audit benchmarks' site: an index linking every page, pages from a few to a few hundred items, with the usual mistakes.

const SIZES = [4, 12, 30, 60, 120, 250];

function productCard(page: number, i: number): string {
  const noAlt = (page + i) % 7 === 0;
  const faint = (page + i) % 11 === 0;
  return `<li class="card"><a href="/p${page}/item-${i}"><img src="/img/${i % 9}.svg" width="96" height="96"${noAlt ? '' : ` alt="Trail shoe model ${i}, side view"`}></a>
<h3>Model ${i}</h3><p${faint ? ' class="faint"' : ''}>Light, grippy and made to last: ${'comfortable '.repeat(1 + (i % 4))}for long runs.</p>
<p class="price">$${(49 + ((i * 7) % 120)).toFixed(2)}</p><button type="button">Add to cart</button></li>`;
}

function sitePage(n: number, pages: number): string {
  const size = SIZES[n % SIZES.length]!;
  const form =
    n % 3 === 0
      ? '<form><input type="search" name="q" placeholder="Search"><button>Go</button></form>'
      : '<form><label>Search <input type="search" name="q"></label><button>Go</button></form>';
  const table =
    n % 4 === 0
      ? `<table><caption>Sizes</caption><tr><th scope="col">EU</th><th scope="col">US</th></tr>${Array.from({ length: Math.ceil(size / 4) }, (_, i) => `<tr><td>${36 + i}</td><td>${4 + i}</td></tr>`).join('')}</table>`
      : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail shoes, page ${n}</title>
<style>body{font-family:sans-serif;margin:0 auto;max-width:60rem}.card{list-style:none;border:1px solid #999;margin:.5rem;padding:.5rem}.faint{color:#aaa}.price{font-weight:bold}nav a{margin-right:1rem}</style></head>
<body><header><a href="/">Trail shop</a><nav aria-label="Pages"><a href="/p${(n + 1) % pages || 1}">Next</a><a href="/p${Math.max(1, n - 1)}">Previous</a></nav></header>
<main><h1>Trail shoes, page ${n}</h1>${form}<ul>${Array.from({ length: size }, (_, i) => productCard(n, i)).join('\n')}</ul>${table}</main>
<footer><p>Trail shop, ${n}</p></footer></body></html>`;
}

function indexPage(pages: number): string {
  const links = Array.from({ length: pages - 1 }, (_, i) => `<li><a href="/p${i + 1}">Page ${i + 1}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail shop</title></head><body><main><h1>Trail shop</h1><ul>${links}</ul></main></body></html>`;
}

const SVG = (i: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96"><rect width="96" height="96" fill="hsl(${i * 40},60%,50%)"/></svg>`;

export interface BenchSite {
  origin: string;
  urls: string[];
  bytes: number[];
  close: () => Promise<void>;
}

/** Serves a site of `count` pages (the index and `count - 1` product pages) on 127.0.0.1. */
export async function serveSite(count: number): Promise<BenchSite> {
  const pages = new Map<string, string>([['/', indexPage(count)]]);
  for (let n = 1; n < count; n++) pages.set(`/p${n}`, sitePage(n, count));
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const svg = /^\/img\/(\d)\.svg$/.exec(path);
    if (svg)
      return void res
        .writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=3600' })
        .end(SVG(Number(svg[1])));
    const body = pages.get(path);
    if (!body) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urls: [...pages.keys()].map((p) => origin + p),
    bytes: [...pages.values()].map((b) => Buffer.byteLength(b)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
