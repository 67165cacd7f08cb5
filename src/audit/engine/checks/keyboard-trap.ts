import { MAX_TAB_PRESSES } from './keyboard-walk.ts';
import { INAPPLICABLE, outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

/** Elements of a trap listed at most: the first few say where it is. */
const MAX_LISTED = 10;

/** 2.1.2 No Keyboard Trap, from the shared Tab walk (ACT 80af7b, standard navigation a1b64e, Escape as in ebe86a). */
export const keyboardTrap: BrowserCheck = {
  rule: {
    id: 'keyboard-trap',
    description: 'Ensures keyboard focus can move away from every element with Tab, Shift+Tab or Escape',
    help: 'Keyboard focus must not be trapped',
    helpUrl: understanding('no-keyboard-trap'),
    tags: ['wcag2a', 'wcag212'],
    actIds: ['80af7b', 'a1b64e'],
    impact: 'critical',
    review: {
      question: 'Can a keyboard user leave this part of the page, or close this dialog, with the keyboard alone?',
      howToCheck:
        'Tab to it, then try Tab, Shift+Tab and Escape; in a dialog, Tab to its close or cancel button and press Enter. If focus can never reach the rest of the page, or the page says no way out, it is a keyboard trap.',
    },
  },
  async run(ctx) {
    const walk = await ctx.walk();
    if (walk.stops.length === 0) return INAPPLICABLE;
    if (walk.trap?.inDialog) {
      const first = walk.trap.stops[0]!;
      return outcome(
        [],
        [
          {
            target: first.target,
            html: first.html,
            summary: `Focus stays among ${walk.trap.stops.length} element${walk.trap.stops.length === 1 ? '' : 's'} of a dialog and Escape does not close it: a modal dialog keeps focus in on purpose, but a keyboard user must be able to close it.`,
          },
        ],
      );
    }
    if (walk.trap) {
      const n = walk.trap.stops.length;
      const failures: CheckNode[] = walk.trap.stops.slice(0, MAX_LISTED).map((stop) => ({
        target: stop.target,
        html: stop.html,
        summary: `Fix this: focus is trapped. Tab and Shift+Tab keep it among ${n === 1 ? 'this element' : `these ${n} elements`} and Escape does not release it, so ${walk.trap!.outside} other focusable element${walk.trap!.outside === 1 ? '' : 's'} of the page cannot be reached by keyboard. Let Tab move on (do not cancel its keydown), or close the widget on Escape.`,
      }));
      return outcome(failures);
    }
    if (walk.capped) {
      const first = walk.stops[0]!;
      return outcome(
        [],
        [
          {
            target: first.target,
            html: first.html,
            summary: `The keyboard walk stopped after ${walk.stops.length} of about ${walk.tabbables} focusable elements (at most ${MAX_TAB_PRESSES} Tab presses, or the check's time): the rest of the page was not checked for traps.`,
          },
        ],
      );
    }
    return outcome([]);
  },
};
