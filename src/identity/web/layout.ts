import { contrastRatio } from '../apps/brand.ts';
import { isLogoUrl } from '../apps/logo.ts';
import { en, type Messages } from './i18n/en.ts';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

// The same rules for a browser that prefers dark, as the dashboard's app follows it. Measured on the card (#1f2023):
// text #e8eaed 13.5:1, hints #bdc1c6 9:1, links and buttons #a8c7fa 9.4:1 (#062e6f on them 7.5:1), errors #f2b8b5 9.5:1,
// notices #81c995 8.3:1; field borders #9aa0a6 6.1:1 and the focus ring #fdd663 11.6:1 (1.4.11 asks 3:1). The QR code
// keeps its white ground: scanners need dark on light.
const DARK = `
@media (prefers-color-scheme: dark){
body{color:#e8eaed;background:#131314}
main{background:#1f2023;border-color:#5f6368}
input[type=email],input[type=password],input[type=text]{color:#e8eaed;background:#131314;border-color:#9aa0a6}
button{border-color:#a8c7fa}
button.primary{background:#a8c7fa;color:#062e6f}
button.secondary{background:#1f2023;color:#a8c7fa}
:focus-visible{outline-color:#fdd663}
.error{color:#f2b8b5;border-color:#f2b8b5}
.hint{color:#bdc1c6}
a{color:#a8c7fa}
a.button{background:#a8c7fa;color:#062e6f}
.notice,.badge{color:#81c995;border-color:#81c995}
nav.account,ul.sessions>li,ul.linked>li,ul.passkeys li{border-color:#5f6368}
nav.account a[aria-current]{color:#e8eaed}
}
`;

// Contrast: #1a1a1a on #ffffff and #ffffff on #0b57d0 both exceed 4.5:1; the focus ring is 3px, 2px off the element,
// #0b57d0 at 6.4:1 on the card and 5.9:1 on the page (WCAG 2.2: 1.4.3, 1.4.11, 2.4.7, 2.4.11, 2.4.13), and blue, not the
// error's red, so a focused field does not look like a wrong one.
const STYLE = `
:root{color-scheme:light dark}
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:1rem;line-height:1.5;color:#1a1a1a;background:#f4f5f7}
main{max-width:28rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #c4c7cc;border-radius:8px}
h1{font-size:1.5rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=password],input[type=text]{width:100%;min-height:44px;padding:.5rem .75rem;font:inherit;color:#1a1a1a;border:1px solid #5f6368;border-radius:4px}
button{min-height:44px;min-width:44px;padding:.5rem 1.25rem;margin-top:1.5rem;font:inherit;font-weight:600;border-radius:4px;border:2px solid #0b57d0;cursor:pointer}
button.primary{background:#0b57d0;color:#fff}
button.secondary{background:#fff;color:#0b57d0;margin-left:.5rem}
button.secondary:first-of-type{margin-left:0}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.error{color:#b3261e;border:1px solid #b3261e;border-radius:4px;padding:.75rem;margin:0 0 1rem}
ul.scopes{padding-left:1.25rem}
.hint{color:#444;font-size:.9rem}
a{color:#0b57d0}
a.button{display:inline-block;min-height:44px;padding:.6rem 1.25rem;font-weight:600;border-radius:4px;background:#0b57d0;color:#fff;text-decoration:none}
img.qr{display:block;margin:.5rem 0;background:#fff}
img.logo{display:block;max-width:100%;max-height:4rem;height:auto;margin:0 0 1rem}
.secret code,ul.codes code{font-size:1.1rem;letter-spacing:.05em}
button.secondary.alt-way{margin:.25rem 0 0}
p.device-code{font-size:1.5rem;letter-spacing:.1em;margin:.5rem 0}
ul.codes{columns:2;padding-left:1.25rem}
ul.passkeys{padding:0;list-style:none}
ul.passkeys li{display:flex;justify-content:space-between;align-items:center;gap:1rem;border-bottom:1px solid #c4c7cc}
ul.passkeys button{margin:.5rem 0}
button.passkey{margin-left:0}
h2.alt{font-size:1.125rem;margin:2rem 0 0}
.notice{border:1px solid #1e6b34;color:#1e6b34;border-radius:4px;padding:.75rem}
nav.account{margin-top:2rem;border-top:1px solid #c4c7cc}
nav.account ul{list-style:none;padding:0;margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:0 1rem}
nav.account a{display:inline-block;min-height:44px;padding:.6rem 0}
nav.account a[aria-current]{font-weight:600;color:#1a1a1a;text-decoration:none}
.vh{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
ul.sessions,ul.linked{list-style:none;padding:0;margin:0}
ul.sessions>li,ul.linked>li{border-top:1px solid #c4c7cc;padding:.5rem 0}
ul.sessions h2,ul.linked h2{font-size:1.125rem;margin:.5rem 0}
ul.sessions button,ul.linked button{margin-top:.5rem}
.badge{display:inline-block;font-size:.875rem;font-weight:600;padding:0 .5rem;border:1px solid #1e6b34;border-radius:4px;color:#1e6b34}
dl.facts{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
${DARK}`;

export interface PageOptions {
  title: string;
  body: string;
  lang?: string;
  /** An app's brand colour (`#rrggbb`, contrast-checked by apps/brand.ts) for the buttons and links. */
  brand?: string | undefined;
  /** An app's or organization's logo (apps/logo.ts), its name as the alt text, above the page's heading. */
  logo?: { url: string; alt: string } | undefined;
}

const BRAND = /^#[0-9a-f]{6}$/;

/** The dark scheme's card (DARK's `main`): what a brand colour must stand out from there. */
const DARK_CARD = '#1f2023';
/** WCAG 2.2 1.4.11: a button's edge against what surrounds it. */
const AA_NON_TEXT = 3;

/**
 * The brand colour on the light card: it passed 4.5:1 under white text (apps/brand.ts), which also makes it readable
 * as link and text colour on white. On the dark card a colour dark enough for white text is never 4.5:1 as text, so
 * links keep the dark scheme's own; the primary buttons take it (white text on it still 4.5:1) only when the button
 * stands out from the dark card by 3:1, else the dark scheme keeps its own colours.
 */
function brandStyle(brand: string | undefined): string {
  if (!brand || !BRAND.test(brand)) return '';
  const light = `@media (prefers-color-scheme: light){button{border-color:${brand}}button.primary,a.button{background:${brand};color:#fff}button.secondary{color:${brand}}a{color:${brand}}:focus-visible{outline-color:${brand}}}`;
  const dark =
    contrastRatio(brand, DARK_CARD) >= AA_NON_TEXT
      ? `@media (prefers-color-scheme: dark){button.primary,a.button{background:${brand};border-color:${brand};color:#fff}}`
      : '';
  return `\n<style>${light}${dark}</style>`;
}

/** The logo above the page's content, when its address is one the pages may load (legacy rows are not shown). */
function logoImage(logo: PageOptions['logo']): string {
  if (!logo || !isLogoUrl(logo.url)) return '';
  return `<img class="logo" src="${escapeHtml(logo.url)}" alt="${escapeHtml(logo.alt)}">\n`;
}

/**
 * One accessible page: language, title, a main landmark with a single h1, visible focus. The referrer
 * policy is same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the form
 * posts, which the cross-site check must refuse.
 */
export function page(options: PageOptions): string {
  return `<!DOCTYPE html>
<html lang="${escapeHtml(options.lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(options.title)}</title>
<style>${STYLE}</style>${brandStyle(options.brand)}
</head>
<body>
<main>
${logoImage(options.logo)}${options.body}
</main>
</body>
</html>`;
}

/** The account pages, linked from each other: the current one is marked, not linked. */
const ACCOUNT_PAGES = [
  ['/account/password', 'password'],
  ['/account/security', 'security'],
  ['/account/email', 'email'],
  ['/account/linked', 'linked'],
  ['/account/sessions', 'sessions'],
  ['/account/apps', 'apps'],
  ['/agents', 'agents'],
  ['/signout', 'signOut'],
] as const;
export type AccountPath = (typeof ACCOUNT_PAGES)[number][0];

/** Navigation between the signed-in person's pages, placed after the page's own content, in the page's language. */
export function accountNav(current: AccountPath, t: Messages['accountNav'] = en.accountNav): string {
  const items = ACCOUNT_PAGES.map(([href, key]) =>
    href === current
      ? `<li><a href="${href}" aria-current="page">${escapeHtml(t[key])}</a></li>`
      : `<li><a href="${href}">${escapeHtml(t[key])}</a></li>`,
  );
  // /signin keeps a live session; this is the way to another account (it signs this browser out first, then back here).
  if (current !== '/signout')
    items.splice(
      -1,
      0,
      `<li><a href="/signin?return_to=${encodeURIComponent(current)}&amp;prompt=login">${escapeHtml(t.someoneElse)}</a></li>`,
    );
  return `<nav class="account" aria-label="${escapeHtml(t.label)}"><ul>${items.join('')}</ul></nav>`;
}

/**
 * A form's marks per field: `aria-invalid` and the error's description on the fields an error concerns (plus any hint
 * of the field), and `autofocus` on the first of them, else on `first`.
 */
export function fieldMarks<F extends string>(
  invalid: readonly F[] | undefined,
  first: F,
): { attrs: (f: F, hint?: string) => string; focus: (f: F) => string } {
  const bad = new Set(invalid ?? []);
  const focused = invalid?.[0] ?? first;
  return {
    attrs: (f, hint) => {
      const described = [bad.has(f) ? 'form-error' : '', hint ?? ''].filter(Boolean).join(' ');
      return `${bad.has(f) ? ' aria-invalid="true"' : ''}${described ? ` aria-describedby="${described}"` : ''}`;
    },
    focus: (f) => (f === focused ? ' autofocus' : ''),
  };
}

/** An error message announced to assistive technology, placed before the form so it is read first. */
export function errorBlock(message: string | undefined): string {
  return message ? `<p class="error" role="alert" id="form-error">${escapeHtml(message)}</p>` : '';
}

/** A page saying what went wrong, in the language its texts are in (English unless told). */
export function errorPage(title: string, message: string, lang = 'en'): string {
  return page({ lang, title, body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>` });
}
