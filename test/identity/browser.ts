/**
 * A minimal browser for driving the server's pages over HTTP from tests: a cookie jar (with paths,
 * Max-Age=0 deletion, and Secure cookies accepted on http://localhost as browsers do), manual
 * redirects, and form fields read from the returned HTML.
 */
interface Cookie {
  value: string;
  path: string;
}

export class TestBrowser {
  private readonly cookies = new Map<string, Cookie>();
  readonly setCookieHeaders: string[] = [];

  cookie(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  private store(header: string): void {
    this.setCookieHeaders.push(header);
    const [pair, ...attrs] = header.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    let path = '/';
    let remove = value === '';
    for (const a of attrs) {
      const [k, v] = a.trim().split('=');
      if (k!.toLowerCase() === 'path' && v) path = v;
      if (k!.toLowerCase() === 'max-age' && Number(v) <= 0) remove = true;
      if (k!.toLowerCase() === 'expires' && v && new Date(v).getTime() < Date.now()) remove = true;
    }
    if (remove) this.cookies.delete(name);
    else this.cookies.set(name, { value, path });
  }

  private header(url: URL): string {
    return [...this.cookies.entries()]
      .filter(
        ([, c]) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
      )
      .map(([n, c]) => `${n}=${c.value}`)
      .join('; ');
  }

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const u = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.header(u);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin ??= u.origin;
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(u, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const h of res.headers.getSetCookie()) this.store(h);
    return res;
  }

  /** Follows redirects from `url` until a page answers or a redirect leaves for `stopAt` (the app's callback). */
  async follow(
    url: string,
    stopAt: string,
    init: Parameters<TestBrowser['request']>[1] = {},
  ): Promise<{ url: string; res: Response; html: string; callback?: string }> {
    let current = url;
    let res = await this.request(current, init);
    for (let i = 0; i < 10; i++) {
      if (res.status < 300 || res.status >= 400) break;
      const next = new URL(res.headers.get('location')!, current).href;
      if (next.startsWith(stopAt)) return { url: current, res, html: '', callback: next };
      current = next;
      res = await this.request(current);
    }
    return { url: current, res, html: await res.text() };
  }
}

export function field(html: string, name: string): string | undefined {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return m ? m[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"') : undefined;
}

export function formAction(html: string): string | undefined {
  return /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
}
