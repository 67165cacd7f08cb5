import { INAPPLICABLE, outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

/**
 * 2.4.13 Focus Appearance (AAA): the pixels that change at 3:1 or more between focused and unfocused cover at least
 * a 2 CSS px thick perimeter of the element. Measured on the same screenshots as focus-visible.
 */
export const focusAppearance: BrowserCheck = {
  rule: {
    id: 'focus-appearance',
    description: 'Ensures the keyboard focus indicator is large enough and contrasts 3:1 with its unfocused state',
    help: 'The focus indicator must be at least as large as a 2 px perimeter, at 3:1 contrast',
    helpUrl: understanding('focus-appearance'),
    tags: ['wcag22aaa', 'wcag2413'],
    actIds: [],
    impact: 'moderate',
  },
  async run(ctx) {
    const { looks } = await ctx.focusLooks();
    const measured = looks.filter((l) => !l.offscreen && l.changed > 0);
    if (measured.length === 0) return INAPPLICABLE;
    const failures: CheckNode[] = measured
      .filter((l) => l.strong < l.perimeter)
      .map((l) => ({
        target: l.stop.target,
        html: l.stop.html,
        summary: `Fix this: the focus indicator changes ${Math.round(l.strong)} CSS px² at 3:1 contrast or more; a 2 px perimeter of this element is ${Math.round(l.perimeter)} px². Use a solid outline of at least 2 px in a colour with 3:1 contrast against the background.`,
      }));
    return outcome(failures);
  },
};
