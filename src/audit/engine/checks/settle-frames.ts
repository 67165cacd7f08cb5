import type { Page } from 'playwright-core';

/** Waits until the page has laid out and painted a change: fonts loaded and two animation frames. */
export async function afterLayout(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await document.fonts?.ready;
    await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
  });
}
