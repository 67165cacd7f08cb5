import type { ElementHandle, Page } from 'playwright-core';
import { installInto, type Helpers } from './in-page.ts';
import { INAPPLICABLE, outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

type H = { __a11yChecks: Helpers };

/** Custom controls tried at most per page. */
const MAX_TRIED = 20;

/** Roles a person expects Enter or Space to work on; links are left out, their activation would leave the page. */
const ROLES = [
  'button',
  'checkbox',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'treeitem',
];

/** Starts watching the page for any reaction: a DOM change, a click event or a change of address. */
async function watch(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as { __a11yReaction?: { seen: boolean; stop(): void } };
    g.__a11yReaction?.stop();
    const state = { seen: false, stop: () => {} };
    const observer = new MutationObserver(() => {
      state.seen = true;
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const onClick = () => {
      state.seen = true;
    };
    const href = location.href;
    document.addEventListener('click', onClick, true);
    state.stop = () => {
      observer.disconnect();
      document.removeEventListener('click', onClick, true);
      if (location.href !== href) state.seen = true;
    };
    g.__a11yReaction = state;
  });
}

async function reacted(page: Page): Promise<boolean> {
  return page.evaluate(async () => {
    await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
    const g = globalThis as unknown as { __a11yReaction?: { seen: boolean; stop(): void } };
    g.__a11yReaction?.stop();
    return g.__a11yReaction?.seen ?? false;
  });
}

/**
 * 2.1.1 Keyboard: an element made to act as a control (a role such as button, tab or checkbox on an element that
 * is not one) that reacts to a mouse click but neither to Enter nor to Space. Each is focused, then Enter is
 * pressed, then Space; only if neither changes anything is it clicked, and a reaction to the click alone fails.
 * Runs last of the deep checks: a control may change the page.
 */
export const keyActivation: BrowserCheck = {
  rule: {
    id: 'keyboard-activation',
    description: 'Ensures custom controls that react to a click also react to Enter or Space',
    help: 'Custom controls must work with the keyboard',
    helpUrl: understanding('keyboard'),
    tags: ['wcag2a', 'wcag211'],
    actIds: [],
    impact: 'serious',
  },
  async run(ctx) {
    const { page } = ctx;
    await installInto(page.mainFrame());
    const handles = (await page.$$(
      ROLES.map((r) => `[role="${r}"]:not(button):not(input):not(select):not(textarea):not(a[href]):not(summary)`).join(
        ', ',
      ),
    )) as ElementHandle<Element>[];
    const candidates: ElementHandle<Element>[] = [];
    for (const handle of handles) {
      const ok = await handle
        .evaluate(
          (el) =>
            (el as HTMLElement).tabIndex >= 0 &&
            !el.closest('[inert], [aria-disabled="true"]') &&
            (globalThis as unknown as H).__a11yChecks.visible(el),
        )
        .catch(() => false);
      if (ok) candidates.push(handle);
      if (candidates.length >= MAX_TRIED) break;
    }
    if (candidates.length === 0) return INAPPLICABLE;
    const failures: CheckNode[] = [];
    for (const handle of candidates) {
      if (Date.now() >= ctx.deadline || page.isClosed()) break;
      const described = await handle
        .evaluate((el) => ({
          target: (globalThis as unknown as H).__a11yChecks.selector(el),
          html: (globalThis as unknown as H).__a11yChecks.html(el),
        }))
        .catch(() => null);
      if (!described) continue;
      await handle.focus();
      await watch(page);
      await page.keyboard.press('Enter');
      if (await reacted(page)) continue;
      await watch(page);
      await page.keyboard.press(' ');
      if (await reacted(page)) continue;
      await watch(page);
      await handle.evaluate((el) => (el as HTMLElement).click());
      if (!(await reacted(page))) continue;
      failures.push({
        target: [described.target.length === 1 ? described.target[0]! : described.target],
        html: described.html,
        summary:
          'Fix this: this control reacts to a click but not to Enter or Space. Use a <button> (which does both), or handle keydown for Enter and Space as a click.',
      });
    }
    await Promise.all(handles.map((h) => h.dispose().catch(() => {})));
    return outcome(failures);
  },
};
