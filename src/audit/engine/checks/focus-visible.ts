import { MAX_LOOKS } from './focus-looks.ts';
import { INAPPLICABLE, outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

/**
 * 2.4.7 Focus Visible (ACT oj04fd): Tab to each element and compare it focused and unfocused. Nothing changing
 * around it fails; a change only further away (a wrapper's or a label's highlight), or focus on an element out of
 * view, is left for a person.
 */
export const focusVisible: BrowserCheck = {
  rule: {
    id: 'focus-visible',
    description: 'Ensures every element that Tab reaches shows that it has keyboard focus',
    help: 'Keyboard focus must be visible',
    helpUrl: understanding('focus-visible'),
    tags: ['wcag2aa', 'wcag247'],
    actIds: ['oj04fd'],
    impact: 'serious',
    review: {
      question: 'Can a sighted keyboard user see where the focus is when this element has it?',
      howToCheck:
        'Press Tab until this element has focus and look at the screen: an outline, a ring, an underline or a change of colour should show on it or right next to it. A highlight elsewhere counts only if it plainly belongs to this element.',
    },
  },
  async run(ctx) {
    const { looks, skipped } = await ctx.focusLooks();
    if (looks.length === 0) return INAPPLICABLE;
    const failures: CheckNode[] = [];
    const review: CheckNode[] = [];
    for (const look of looks) {
      const node = { target: look.stop.target, html: look.stop.html };
      if (look.offscreen)
        review.push({
          ...node,
          summary: 'Focus landed on this element while it was outside the visible part of the page.',
        });
      else if (look.changed === 0 && look.changedAround > 0)
        review.push({
          ...node,
          summary: `Nothing changed on this element or within 8 px of it when it got focus, but ${Math.round(look.changedAround)} pixels changed further around it.`,
        });
      else if (look.changed === 0)
        failures.push({
          ...node,
          summary:
            'Fix this: nothing on or around this element changes when it gets keyboard focus. Do not remove the outline (outline: none) without drawing another indicator, for example with :focus-visible { outline: 2px solid; outline-offset: 2px }.',
        });
    }
    if (skipped && looks.length > 0)
      review.push({
        target: looks[looks.length - 1]!.stop.target,
        html: looks[looks.length - 1]!.stop.html,
        summary: `Only the first ${MAX_LOOKS} elements Tab reaches were compared focused and unfocused; the elements after this one were not checked.`,
      });
    return outcome(failures, review);
  },
};
