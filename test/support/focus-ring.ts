import { mkdirSync } from 'node:fs';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

const ARTIFACTS = new URL('../../test-artifacts/focus/', import.meta.url);

type Rgb = [number, number, number];

/** What the browser draws around a focused element, and the colours it is judged against. */
interface Ring {
  focusVisible: boolean;
  style: string;
  width: number;
  offset: number;
  color: string;
  /** The first opaque background behind the element: what the ring is drawn on (outside the element). */
  background: string;
  /** The page's colour for errors, from `probe` (a class or a colour expression) on an element of its own. */
  error: string;
}

const rgb = (css: string): Rgb => {
  const m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)$/.exec(css);
  assert.ok(m, `an opaque rgb() colour: ${css}`);
  assert.ok(m[4] === undefined || Number(m[4]) === 1, `an opaque colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};

/** WCAG's relative luminance and contrast ratio. */
const luminance = ([r, g, b]: Rgb) => {
  const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
export const contrast = (a: string, b: string): number => {
  const [x, y] = [luminance(rgb(a)), luminance(rgb(b))].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
};

/** The hue in degrees (HSL). */
const hue = ([r, g, b]: Rgb): number => {
  const max = Math.max(r, g, b);
  const d = max - Math.min(r, g, b);
  if (d === 0) return 0;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
};
const hueDistance = (a: string, b: string) => {
  const d = Math.abs(hue(rgb(a)) - hue(rgb(b)));
  return Math.min(d, 360 - d);
};

async function readRing(target: Locator, probe: { className: string } | { color: string }): Promise<Ring> {
  // Runs in the page. The tests' TypeScript has no DOM types, so the page's globals are reached through `globalThis`.
  return target.evaluate((el: any, probe: { className?: string; color?: string }) => {
    const page = globalThis as any;
    const s = page.getComputedStyle(el);
    let background = 'rgb(255, 255, 255)';
    for (let at = el.parentElement; at; at = at.parentElement) {
      const bg = page.getComputedStyle(at).backgroundColor;
      if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') {
        background = bg;
        break;
      }
    }
    const p = page.document.createElement('p');
    if (probe.className) p.className = probe.className;
    else p.style.color = probe.color;
    (page.document.querySelector('main') ?? page.document.body).append(p);
    const error: string = page.getComputedStyle(p).color;
    p.remove();
    return {
      focusVisible: el.matches(':focus-visible') as boolean,
      style: s.outlineStyle as string,
      width: Number.parseFloat(s.outlineWidth),
      offset: Number.parseFloat(s.outlineOffset),
      color: s.outlineColor as string,
      background,
      error,
    };
  }, probe);
}

/**
 * Focuses `target` and checks its focus indicator against WCAG 2.2's focus appearance (2.4.13): an outline at least
 * 2 CSS px thick all round, set off from the element so the background lies on both sides of it, at least 3:1 against
 * that background (which is also the change from unfocused to focused, the same pixels before and after); and not the
 * error colour, so a focused field does not look like a wrong one. Saves a picture of it under test-artifacts/focus/.
 */
export async function assertFocusRing(
  page: Page,
  target: Locator,
  errorProbe: { className: string } | { color: string },
  shot: string,
): Promise<Ring> {
  await target.focus();
  const ring = await readRing(target, errorProbe);
  const what = `${shot}: ${JSON.stringify(ring)}`;
  assert.equal(ring.focusVisible, true, `${what}: the element shows focus`);
  assert.equal(ring.style, 'solid', what);
  assert.ok(ring.width >= 2, `${what}: at least 2 CSS px thick`);
  assert.ok(ring.offset >= 1, `${what}: set off from the element, on the background`);
  const against = contrast(ring.color, ring.background);
  assert.ok(against >= 3, `${what}: ${against.toFixed(2)}:1 against the background, 3:1 needed`);
  assert.notEqual(ring.color, ring.error, `${what}: the focus ring is the error colour`);
  assert.ok(hueDistance(ring.color, ring.error) >= 30, `${what}: the focus ring has the error colour's hue`);

  const box = await target.boundingBox();
  assert.ok(box, `${shot}: the element is on screen`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const margin = 24;
  await page.screenshot({
    path: new URL(`${shot}.png`, ARTIFACTS).pathname,
    clip: {
      x: Math.max(0, box.x - margin),
      y: Math.max(0, box.y - margin),
      width: box.width + 2 * margin,
      height: box.height + 2 * margin,
    },
  });
  return ring;
}
