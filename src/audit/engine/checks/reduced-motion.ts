import { installInto, type Helpers } from './in-page.ts';
import { INAPPLICABLE, outcome, type BrowserCheck } from './types.ts';
import { understanding } from './understanding.ts';

type H = { __a11yChecks: Helpers };

const MOVING = /^(transform|translate|rotate|scale|left|right|top|bottom|margin|offset|background-position)/i;

/**
 * 2.3.3 Animation from Interactions, as a question: a deep audit loads pages preferring reduced motion
 * (`prefers-reduced-motion: reduce`); animations that still move things on load are listed for a person.
 */
export const reducedMotion: BrowserCheck = {
  rule: {
    id: 'motion-reduced',
    description: 'Finds motion that plays on load although the reader prefers reduced motion',
    help: 'Motion should stop when the reader prefers reduced motion',
    helpUrl: understanding('animation-from-interactions'),
    tags: ['wcag21aaa', 'wcag233'],
    actIds: [],
    impact: 'moderate',
    review: {
      only: true,
      question: 'Is this motion essential, or can it be turned off?',
      howToCheck:
        'Turn on "reduce motion" in the operating system (or emulate prefers-reduced-motion: reduce in the browser\'s developer tools), reload the page and watch: anything that still slides, zooms, spins or parallaxes should stop or be replaced by a fade, unless the motion is essential.',
    },
  },
  async run(ctx) {
    await installInto(ctx.page.mainFrame());
    const moving = await ctx.page.evaluate((pattern) => {
      const h = (globalThis as unknown as H).__a11yChecks;
      const moves = new RegExp(pattern, 'i');
      const out: Array<{ target: string[]; html: string; name: string }> = [];
      const seen = new Set<Element>();
      for (const a of document.getAnimations()) {
        const effect = a.effect as KeyframeEffect | null;
        const el = effect?.target;
        if (!el || seen.has(el) || a.playState !== 'running' || !h.visible(el)) continue;
        const props = effect.getKeyframes().flatMap((k) => Object.keys(k));
        if (!props.some((p) => moves.test(p))) continue;
        seen.add(el);
        out.push({ target: h.selector(el), html: h.html(el), name: (a as CSSAnimation).animationName ?? a.id ?? '' });
        if (out.length >= 20) break;
      }
      return out;
    }, MOVING.source);
    if (moving.length === 0) return INAPPLICABLE;
    return outcome(
      [],
      moving.map((m) => ({
        target: [m.target.length === 1 ? m.target[0]! : m.target],
        html: m.html,
        summary: `The animation${m.name ? ` "${m.name}"` : ''} moves this element on load although the page was loaded preferring reduced motion.`,
      })),
    );
  },
};
