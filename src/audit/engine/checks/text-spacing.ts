import { textClippedBy } from './clipped-text.ts';
import { INAPPLICABLE, outcome, type BrowserCheck } from './types.ts';
import { understanding } from './understanding.ts';

const STYLE_ID = '__a11y-text-spacing';

/** The spacing 1.4.12 names, as the W3C's text-spacing bookmarklet sets it. */
export const TEXT_SPACING_CSS = `* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }
p { margin-bottom: 2em !important; }`;

/** 1.4.12 Text Spacing: with the criterion's spacing forced on every element, no text may be cut off. */
export const textSpacing: BrowserCheck = {
  rule: {
    id: 'text-spacing',
    description: 'Ensures no text is cut off when line, paragraph, letter and word spacing are increased',
    help: 'Text must stay readable with increased text spacing',
    helpUrl: understanding('text-spacing'),
    tags: ['wcag21aa', 'wcag1412'],
    actIds: [],
    impact: 'serious',
  },
  async run(ctx) {
    const { clipped, texts } = await textClippedBy(
      ctx.page,
      (page) =>
        page.evaluate(
          ([id, css]) => {
            const style = document.createElement('style');
            style.id = id;
            style.textContent = css;
            document.head.append(style);
          },
          [STYLE_ID, TEXT_SPACING_CSS] as const,
        ),
      (page) => page.evaluate((id) => document.getElementById(id)?.remove(), STYLE_ID),
    );
    if (texts === 0) return INAPPLICABLE;
    return outcome(
      clipped.map((c) => ({
        target: [c.target.length === 1 ? c.target[0]! : c.target],
        html: c.html,
        summary: `Fix this: with line height 1.5, paragraph spacing 2, letter spacing 0.12 and word spacing 0.16 times the font size, ${c.lostY > 1 ? `${Math.round(c.lostY)} px of its text is cut off at the bottom` : `${Math.round(c.lostX)} px of its text is cut off at the side`} (overflow: hidden). Let the box grow with its text: min-height instead of height, no fixed line boxes.`,
      })),
    );
  },
};
