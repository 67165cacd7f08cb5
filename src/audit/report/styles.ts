/**
 * The report's only styles (inline: the page is one self-contained file). Light and dark schemes follow the
 * reader's setting; every text colour meets 4.5:1 on its background and focus is always visible.
 */
export const REPORT_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1b1f; --muted: #4a4a55; --card: #f4f5f7; --border: #8a8f98;
  --link: #0b57b0; --focus: #0b57b0; --code-bg: #eceef2;
  --critical-bg: #8e1016; --serious-bg: #a33b00; --moderate-bg: #6b5300; --minor-bg: #3d4a5c; --badge-fg: #ffffff;
  --pass: #146c2e; --fail: #a4161a; --llm-bg: #4b2a84;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15161a; --fg: #eceef2; --muted: #b9bcc6; --card: #1f2127; --border: #7b808c;
    --link: #8cc4ff; --focus: #ffd166; --code-bg: #2a2d35;
    --critical-bg: #ffb3b0; --serious-bg: #ffc08a; --moderate-bg: #f2d675; --minor-bg: #c9d3e3; --badge-fg: #15161a;
    --pass: #8ee0a1; --fail: #ffb3b0; --llm-bg: #d7c4ff;
  }
}
* { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; background: var(--bg); color: var(--fg); }
body { margin: 0; }
a { color: var(--link); text-underline-offset: 0.15em; }
a:focus-visible, main:focus-visible, [tabindex]:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: 0.5rem; top: -3rem; background: var(--bg); padding: 0.5rem 1rem; border: 2px solid var(--focus); z-index: 1; }
.skip:focus { top: 0.5rem; }
header, nav, main, footer { max-width: 72rem; margin: 0 auto; padding: 0 1.25rem; }
header { padding-top: 1.5rem; }
h1 { font-size: 1.9rem; margin: 0 0 0.25rem; }
h2 { font-size: 1.5rem; margin: 2.5rem 0 0.75rem; border-bottom: 2px solid var(--border); padding-bottom: 0.25rem; }
h3 { font-size: 1.2rem; margin: 1.75rem 0 0.5rem; }
h4 { font-size: 1rem; margin: 1.25rem 0 0.5rem; overflow-wrap: anywhere; }
p, li, dd { overflow-wrap: anywhere; }
th[scope=row] { overflow-wrap: anywhere; min-width: 14rem; }
th[scope=row] span { font-weight: 400; color: var(--muted); }
.lead { color: var(--muted); margin: 0; overflow-wrap: anywhere; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; }
nav a { display: inline-block; padding: 0.25rem 0; min-height: 24px; }
.summary { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 1rem; }
.card h3 { margin-top: 0; }
.score { font-size: 2.75rem; font-weight: 700; line-height: 1.1; margin: 0; }
.verdict-pass { color: var(--pass); font-weight: 700; }
.verdict-fail { color: var(--fail); font-weight: 700; }
dl.stats { display: grid; grid-template-columns: auto auto; gap: 0.15rem 1rem; margin: 0; }
dl.stats dt { color: var(--muted); }
dl.stats dd { margin: 0; font-weight: 600; text-align: right; font-variant-numeric: tabular-nums; }
.table-scroll { overflow-x: auto; margin: 0.5rem 0 1rem; }
.table-scroll > table { margin: 0; }
/* The caption stays in view and wraps while the table under it scrolls (main's padding is 1.25rem a side). */
.table-scroll caption { position: sticky; left: 0; max-width: calc(100vw - 2.5rem); }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
th, td { border: 1px solid var(--border); padding: 0.4rem 0.5rem; text-align: left; vertical-align: top; }
th { background: var(--card); }
td.num { text-align: right; }
ol.findings { list-style: none; padding: 0; margin: 0; }
ol.findings > li { background: var(--card); border: 1px solid var(--border); border-left-width: 6px; border-radius: 6px; padding: 0.75rem 1rem; margin: 0 0 0.75rem; }
ol.findings > li.llm { border-left-style: double; }
.badge { display: inline-block; border-radius: 4px; padding: 0 0.5rem; font-size: 0.875rem; font-weight: 700; color: var(--badge-fg); margin-right: 0.5rem; }
.badge.critical { background: var(--critical-bg); }
.badge.serious { background: var(--serious-bg); }
.badge.moderate { background: var(--moderate-bg); }
.badge.minor, .badge.review, .badge.ignored { background: var(--minor-bg); }
.badge.llm { background: var(--llm-bg); }
.what { font-weight: 600; }
dl.detail { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 0.75rem; margin: 0.5rem 0 0; }
dl.detail dt { color: var(--muted); }
dl.detail dd { margin: 0; min-width: 0; }
/* axe gives one message per check; they read as one run-on sentence unless each keeps its line. */
dd.lines { white-space: pre-line; }
/* Beside a label column a 320 px window leaves markup and fixes about 140 px: narrow windows stack them. */
@media (max-width: 30rem) {
  dl.detail { grid-template-columns: 1fr; gap: 0; }
  dl.detail dd { margin-bottom: 0.5rem; }
}
ol.priorities { padding-left: 1.75rem; }
ol.priorities > li { margin: 0 0 0.5rem; overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.875rem; }
code { background: var(--code-bg); border-radius: 3px; padding: 0 0.25rem; overflow-wrap: anywhere; }
pre { background: var(--code-bg); border-radius: 4px; padding: 0.5rem; margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { background: none; padding: 0; }
img.shot { display: block; max-width: 100%; height: auto; border: 1px solid var(--border); }
.note { border: 2px solid var(--border); border-radius: 6px; padding: 0.75rem 1rem; }
footer { margin-top: 3rem; padding-bottom: 2rem; color: var(--muted); border-top: 1px solid var(--border); }
@media print { .skip, nav { display: none; } ol.findings > li { break-inside: avoid; } }
`;
