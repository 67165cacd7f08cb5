import { chromium, type Browser, type Page } from 'playwright-core';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { CHROMIUM_ARGS, findChromium } from '../../kit/browser.ts';
import type { Database } from '../../kit/db.ts';
import { signAccessToken, type JwtKeys } from '../auth/jwt.ts';
import { RENDER_SESSION, type AuthUser } from '../auth/user.ts';

/** How long the render credential lives: enough to load a dashboard and run its widgets, nothing more. */
const RENDER_TTL_SECONDS = 120;
const RENDER_TIMEOUT_MS = 60_000;
const WIDTH = 1280;

/**
 * A credential for one render, as the subscription's owner: a session of its own holding one access token that lives
 * two minutes, revoked as soon as the screenshot is taken. It reaches the page through the page's storage (an init
 * script), never a URL, so it is in no address bar, history, proxy or request log. Its session's provider makes it
 * read-only: it reads what a viewer may read, as the owner, and changes nothing (auth/access.ts).
 */
export type RenderCredential = Awaited<ReturnType<typeof renderCredential>>;

export async function renderCredential(db: Database, keys: JwtKeys, owner: AuthUser) {
  const session = await db.query<{ id: number }>(
    `INSERT INTO sessions (user_id, provider, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING id::int AS id`,
    [owner.id, RENDER_SESSION, RENDER_TTL_SECONDS],
  );
  const sessionId = session.rows[0]!.id;
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await signAccessToken(keys, owner, RENDER_TTL_SECONDS, now);
  await db.query(`INSERT INTO access_tokens (token_hash, session_id, expires_at) VALUES ($1, $2, to_timestamp($3))`, [
    sha256Hex(accessToken),
    sessionId,
    now + RENDER_TTL_SECONDS,
  ]);
  return {
    // The refresh token is not stored anywhere: the render cannot outlive its access token.
    pair: { accessToken, refreshToken: `drt_${randomToken(32)}`, expiresIn: RENDER_TTL_SECONDS, tokenType: 'Bearer' },
    revoke: () =>
      db.query(`UPDATE sessions SET revoked_at = now(), revoked_why = 'render done' WHERE id = $1`, [sessionId]),
  };
}

/** What the picture is drawn with: the dashboard, its parameters' values, and the zone its times are read in. */
export interface PictureOf {
  dashboardId: number;
  parameters: Record<string, string>;
  /** The subscription's IANA time zone: the picture's times and ranges are written in it, as its schedule is. */
  timezone: string;
}

/**
 * The dashboard's page in `browser`, signed in with the render credential, with the subscription's parameter values
 * (`?var-<name>=`, Grafana's URL form), once every widget has drawn: for that credential the web app draws the picture
 * alone (title, the values as text, the widgets as the owner may see them, no control:
 * web/dashboard/src/dashboards/DashboardPicture.tsx). Throws, rather than answer another page, when the app drew
 * anything but the dashboard: its sign-in (the credential refused), or the dashboard's own error.
 */
export async function openPicture(
  browser: Browser,
  baseUrl: string,
  pair: RenderCredential['pair'],
  picture: PictureOf,
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: WIDTH, height: 900 },
    reducedMotion: 'reduce',
    colorScheme: 'light',
    timezoneId: picture.timezone,
  });
  await context.addInitScript((value) => localStorage.setItem('dashboard.session', value), JSON.stringify(pair));
  const page = await context.newPage();
  page.setDefaultTimeout(RENDER_TIMEOUT_MS);
  const search = new URLSearchParams(
    Object.entries(picture.parameters).map(([k, v]): [string, string] => [`var-${k}`, v]),
  );
  await page.goto(`${baseUrl}/dashboards/${picture.dashboardId}${search.size ? `?${search}` : ''}`);
  // The first heading the app draws says which page it is: the picture's title, or anything else.
  const heading = page.locator('main.picture h1[data-picture], main h1:not([data-picture])').first();
  await heading.waitFor();
  if ((await heading.getAttribute('data-picture')) === null) {
    if ((await page.locator('main.picture').count()) === 0)
      throw new Error('the web app asked the render to sign in: its credential was refused');
    const alert = page.locator('main [role="alert"]').first();
    const why = (await alert.count()) ? (await alert.innerText()).trim() : (await heading.innerText()).trim();
    throw new Error(`the web app could not draw the dashboard: ${why}`);
  }
  await page.waitForLoadState('networkidle');
  // Every widget has drawn: no "Loading…" left in the page (a string, evaluated in the page, not here).
  await page.waitForFunction(
    `![...document.querySelectorAll('main .hint')].some((e) => e.textContent.trim() === 'Loading…')`,
  );
  return page;
}

/** A PNG of the dashboard's picture (openPicture) down to the end of its content, in a browser of its own. */
export async function renderDashboard(
  db: Database,
  keys: JwtKeys,
  owner: AuthUser,
  baseUrl: string,
  picture: PictureOf,
): Promise<Buffer> {
  const credential = await renderCredential(db, keys, owner);
  const browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await openPicture(browser, baseUrl, credential.pair, picture);
    // Down to the content's end: a dashboard shorter than the window gets no blank window below it.
    const height = await page.evaluate<number>(
      `Math.ceil(document.querySelector('main').getBoundingClientRect().bottom + scrollY)`,
    );
    return await page.screenshot({ fullPage: true, type: 'png', clip: { x: 0, y: 0, width: WIDTH, height } });
  } finally {
    await browser.close();
    await credential.revoke();
  }
}
