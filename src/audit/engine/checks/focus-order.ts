import type { FocusStop, Rect } from './keyboard-walk.ts';
import { INAPPLICABLE, outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

const MAX_LISTED = 20;

/** A box in page coordinates: where it was in the viewport plus how far the page was scrolled then. */
function onPage(stop: FocusStop): Rect | null {
  if (!stop.rect || stop.pinned || stop.rect.width < 1 || stop.rect.height < 1) return null;
  return { ...stop.rect, x: stop.rect.x + stop.scroll.x, y: stop.rect.y + stop.scroll.y };
}

function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

/**
 * How `to` contradicts reading order after `from`, or null: within one row (boxes sharing most of their height)
 * focus went left, or within one column (boxes sharing most of their width) it went up. Moves between columns
 * and rows are how columns are read, so they are left alone. Assumes left-to-right text.
 */
function contradiction(from: Rect, to: Rect): string | null {
  const rowShare = overlap(from.y, from.y + from.height, to.y, to.y + to.height) / Math.min(from.height, to.height);
  if (rowShare >= 0.5 && to.x + to.width <= from.x + 1) return 'to its left in the same row';
  const columnShare = overlap(from.x, from.x + from.width, to.x, to.x + to.width) / Math.min(from.width, to.width);
  if (columnShare >= 0.5 && to.y + to.height <= from.y + 1) return 'above it in the same column';
  return null;
}

/** 2.4.3 Focus Order, as a question for a person: where Tab goes against the visual reading order. */
export const focusOrder: BrowserCheck = {
  rule: {
    id: 'focus-order-semantics-visual',
    description: 'Finds where the keyboard focus order goes against the visual reading order',
    help: 'Focus order should follow the reading order',
    helpUrl: understanding('focus-order'),
    tags: ['wcag2a', 'wcag243'],
    actIds: [],
    impact: 'moderate',
    review: {
      only: true,
      question: 'Does the order in which Tab moves focus keep the meaning and use of the page?',
      howToCheck:
        'Load the page, press Tab from the top and watch the focus: it should move in the order you read (left to right, top to bottom) through each group. A jump back, like here, is a failure when it makes a form or a menu harder to understand or use; CSS order, flex-direction: row-reverse, grid placement and positive tabindex values are the usual causes.',
    },
  },
  async run(ctx) {
    const walk = await ctx.walk();
    if (walk.stops.length < 2) return INAPPLICABLE;
    const review: CheckNode[] = [];
    for (let i = 1; i < walk.stops.length && review.length < MAX_LISTED; i++) {
      const from = walk.stops[i - 1]!;
      const to = walk.stops[i]!;
      const a = onPage(from);
      const b = onPage(to);
      if (!a || !b || from.target.length !== to.target.length) continue;
      const how = contradiction(a, b);
      if (!how) continue;
      review.push({
        target: to.target,
        html: to.html,
        summary: `Tab moved focus from ${from.html} to this element, ${how}.`,
      });
    }
    return outcome([], review);
  },
};
