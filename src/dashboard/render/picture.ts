import type { Browser, Page } from 'playwright-core';
import type { RenderCredential } from './credential.ts';

/** The picture's width in CSS pixels: the PNG's width, and the PDF's page width (960 pt). */
export const PICTURE_WIDTH = 1280;
/**
 * A PDF page's height: the width times 21/17, the proportions Metabase's "Export as PDF" gives its pages (as wide as
 * the dashboard, portrait, about a US Letter sheet's shape), so a page of the picture prints on A4 or Letter whole.
 */
export const PDF_PAGE_HEIGHT = Math.round((PICTURE_WIDTH * 21) / 17);
/** Space above and below the content on every PDF page (the picture's own padding is on its first page only). */
const PDF_MARGIN = '24px';

export type PictureFormat = 'png' | 'pdf';

/** What the picture is drawn with: the dashboard, its parameters' values, and the zone its times are read in. */
export interface PictureOf {
  dashboardId: number;
  parameters: Record<string, string>;
  /** An IANA time zone: the picture's times and ranges are written in it (a subscription's, or the downloader's). */
  timezone: string;
}

/**
 * The dashboard's page in `browser`, signed in with the render credential, with the parameter values
 * (`?var-<name>=`, Grafana's URL form), once every widget has drawn: for that credential the web app draws the picture
 * alone (title, the values as text, the widgets as the credential's user may see them, no control:
 * web/dashboard/src/dashboards/DashboardPicture.tsx). Throws, rather than answer another page, when the app drew
 * anything but the dashboard: its sign-in (the credential refused), or the dashboard's own error. Each wait gives up
 * after `timeoutMs`.
 */
export async function openPicture(
  browser: Browser,
  baseUrl: string,
  pair: RenderCredential['pair'],
  picture: PictureOf,
  timeoutMs = 60_000,
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: PICTURE_WIDTH, height: 900 },
    reducedMotion: 'reduce',
    colorScheme: 'light',
    timezoneId: picture.timezone,
  });
  await context.addInitScript((value) => localStorage.setItem('dashboard.session', value), JSON.stringify(pair));
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
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

/**
 * The picture as a file. A PNG down to the end of the content: a dashboard shorter than the window gets no blank
 * window below it. A PDF of pages PICTURE_WIDTH wide and PDF_PAGE_HEIGHT tall, drawn as on screen (not the print
 * style), its backgrounds included; a widget is not cut across two pages where it fits on one (styles.css,
 * `break-inside: avoid` on the picture's widgets).
 */
export async function shoot(page: Page, format: PictureFormat): Promise<Buffer> {
  if (format === 'pdf') {
    await page.emulateMedia({ media: 'screen' });
    return page.pdf({
      width: `${PICTURE_WIDTH}px`,
      height: `${PDF_PAGE_HEIGHT}px`,
      printBackground: true,
      margin: { top: PDF_MARGIN, bottom: PDF_MARGIN, left: '0', right: '0' },
    });
  }
  const height = await page.evaluate<number>(
    `Math.ceil(document.querySelector('main').getBoundingClientRect().bottom + scrollY)`,
  );
  return page.screenshot({ fullPage: true, type: 'png', clip: { x: 0, y: 0, width: PICTURE_WIDTH, height } });
}
