import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { page } from './support.ts';

/** The one account of the site. The password is long and unusual, so a scan for it finds only real leaks. */
export const USER = 'ci-user';
export const PASSWORD = `Pa55-w0rd!&"quoted" §${randomBytes(6).toString('hex')}`;
/** A session id the site takes as signed in from the start, for a session given as a cookie. */
export const SESSION_COOKIE = `sid_${randomBytes(12).toString('hex')}`;
/** A token the site wants in X-Api-Token on its /api-page (a header session). */
export const API_TOKEN = `tok_${randomBytes(12).toString('hex')}`;

export interface SignInSite {
  origin: string;
  /** Every request's method and path with query, in order. */
  hits: string[];
  /** Requests that carried X-Api-Token, by path. */
  tokenSeenOn: string[];
  /** Sessions signed out through /logout. */
  signOuts: number;
  close(): Promise<void>;
}

const LOGIN = page(
  'Sign in',
  `<form method="post" action="/login">
     <label for="user">User</label><input id="user" name="user" autocomplete="username">
     <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">
     <button type="submit" id="go">Sign in</button>
   </form>`,
);

/**
 * A site with a sign-in form whose pages differ signed in and signed out. Signed in, /account has an image without
 * alternative text, echoes the password into an unlabelled field (as a careless "show password" page would), and
 * links to /settings (an unlabelled field too) and to two ways out: /logout and a "Sign out" link to /session/end.
 * Signed out, /account and /settings are plain pages asking to sign in.
 */
export async function serveSignInSite(
  options: { loginAction?: string; redirectTo?: string } = {},
): Promise<SignInSite> {
  const sessions = new Set<string>();
  const site: SignInSite = { origin: '', hits: [], tokenSeenOn: [], signOuts: 0, close: async () => {} };
  const signedIn = (req: IncomingMessage) => {
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    return sid !== undefined && (sessions.has(sid) || sid === SESSION_COOKIE);
  };
  const html = (res: ServerResponse, body: string, status = 200) =>
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    site.hits.push(`${req.method} ${url.pathname}${url.search}`);
    if (req.headers['x-api-token']) site.tokenSeenOn.push(url.pathname);
    switch (url.pathname) {
      case '/login':
        if (req.method === 'POST') {
          let body = '';
          req.on('data', (d: Buffer) => (body += d.toString()));
          req.on('end', () => {
            const form = new URLSearchParams(body);
            if (form.get('user') === USER && form.get('password') === PASSWORD) {
              const sid = randomBytes(16).toString('hex');
              sessions.add(sid);
              res.writeHead(303, { location: '/account', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` }).end();
            } else res.writeHead(303, { location: '/login?error=1' }).end();
          });
          return;
        }
        return html(
          res,
          options.loginAction ? LOGIN.replace('action="/login"', `action="${options.loginAction}"`) : LOGIN,
        );
      case '/account':
        if (!signedIn(req))
          return html(
            res,
            page('Please sign in', '<p>This page is for signed-in people.</p><a href="/login">Sign in</a>'),
          );
        return html(
          res,
          page(
            'Your account',
            `<p>Welcome, ${USER}.</p><img src="/avatar.png" id="avatar">
             <input id="shown-password" value="${PASSWORD.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}">
             <a href="/settings">Settings</a> <a href="/logout">Log out</a> <a href="/session/end">Sign out</a>`,
          ),
        );
      case '/settings':
        if (!signedIn(req)) return html(res, page('Please sign in', '<p>Sign in first.</p>'));
        return html(res, page('Settings', '<input id="nickname"><a href="/account">Account</a>'));
      case '/logout':
      case '/session/end':
        site.signOuts++;
        sessions.clear();
        return html(res, page('Signed out', '<p>Bye.</p>'));
      case '/api-page':
        if (req.headers['x-api-token'] !== API_TOKEN) return html(res, page('No token', '<p>Send the token.</p>'), 401);
        return options.redirectTo
          ? res.writeHead(302, { location: options.redirectTo }).end()
          : html(res, page('API page', '<p>Token accepted.</p><img src="/avatar.png" id="token-avatar">'));
      case '/avatar.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end();
      default:
        return html(res, page('Not found', '<p>No such page.</p>'), 404);
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

/** The steps that sign in to the site, the password named as the stored secret `name`. */
export function signInSteps(origin: string, name = 'SITE_PASSWORD') {
  return [
    { action: 'goto', url: `${origin}/login` },
    { action: 'fill', selector: '#user', value: USER },
    { action: 'fill', selector: '#password', secret: name },
    { action: 'click', selector: '#go' },
    { action: 'waitForUrl', url: '/account' },
  ];
}
