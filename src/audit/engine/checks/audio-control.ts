import { installInto, type Helpers } from './in-page.ts';
import { INAPPLICABLE, outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

type H = { __a11yChecks: Helpers };

/**
 * Installed before the page's own scripts (page.addInitScript): marks media a script asks to play before the reader
 * has done anything. The audit's browser refuses such a play() with sound, as Chromium does on a site a person has not
 * played media on, so the element stays paused here, though a browser that allows it plays the sound.
 */
export const AUTOPLAY_PROBE = `(() => {
  const proto = globalThis.HTMLMediaElement && HTMLMediaElement.prototype;
  if (!proto) return;
  const play = proto.play;
  proto.play = function () {
    if (!(navigator.userActivation && navigator.userActivation.hasBeenActive)) this.__a11yPlayAsked = true;
    return play.call(this);
  };
})();`;

/**
 * 1.4.2 Audio Control (ACT 80f0bf, aaa1bf, 4c31df): an audio or video element that starts on its own with its
 * sound on, for more than 3 seconds (or in a loop), needs a way to stop it. Its own `controls` pass; with none
 * and no button on the page that names pausing, stopping, muting or the sound, it fails; with such a button, a
 * person checks that the button controls it. A length not known yet is left for review too.
 */
export const audioControl: BrowserCheck = {
  rule: {
    id: 'audio-control',
    description: 'Ensures sound that plays on its own for more than 3 seconds can be paused, stopped or muted',
    help: 'Audio that plays automatically must have a control',
    helpUrl: understanding('audio-control'),
    tags: ['wcag2a', 'wcag142'],
    actIds: ['80f0bf', '4c31df', 'aaa1bf'],
    impact: 'serious',
    review: {
      question:
        'Can the sound that starts on its own be paused, stopped or turned down, by a control near the top of the page?',
      howToCheck:
        'Load the page with sound on. If sound plays for more than 3 seconds, find a control that pauses, stops or mutes it (or sets its volume apart from the system volume) and use it with the keyboard.',
    },
  },
  async run(ctx) {
    await installInto(ctx.page.mainFrame());
    const media = await ctx.page.evaluate(() => {
      const h = (globalThis as unknown as H).__a11yChecks;
      const controlWords = /\b(pause|stop|mute|unmute|sound|audio|volume)\b/i;
      const hasControl = Array.from(document.querySelectorAll('button, [role="button"], input[type="button"]')).some(
        (b) =>
          controlWords.test(
            `${(b as HTMLElement).innerText ?? ''} ${b.getAttribute('aria-label') ?? ''} ${b.getAttribute('title') ?? ''}`,
          ),
      );
      return Array.from(document.querySelectorAll('audio, video')).map((el) => {
        const m = el as HTMLMediaElement;
        return {
          target: h.selector(m),
          html: h.html(m),
          onItsOwn: m.autoplay || !m.paused || (m as unknown as { __a11yPlayAsked?: boolean }).__a11yPlayAsked === true,
          audible: !m.muted && m.volume > 0,
          duration: Number.isFinite(m.duration) ? m.duration : null,
          loop: m.loop,
          controls: m.controls,
          hasControl,
        };
      });
    });
    const playing = media.filter((m) => m.onItsOwn && m.audible);
    if (playing.length === 0) return INAPPLICABLE;
    const failures: CheckNode[] = [];
    const review: CheckNode[] = [];
    for (const m of playing) {
      const node = { target: [m.target.length === 1 ? m.target[0]! : m.target], html: m.html };
      if (m.controls) continue;
      if (!m.loop && m.duration !== null && m.duration <= 3) continue;
      if (m.duration === null && !m.loop)
        review.push({
          ...node,
          summary: 'It starts on its own with sound; its length was not known yet when checked.',
        });
      else if (m.hasControl)
        review.push({
          ...node,
          summary:
            'It starts on its own with sound and has no controls of its own; the page has a button that may control it.',
        });
      else
        failures.push({
          ...node,
          summary: `Fix this: it plays ${m.loop ? 'in a loop' : `for ${Math.round(m.duration!)} s`} with sound as soon as the page loads, and there is no control to pause, stop or mute it. Remove autoplay, start it muted, or add the controls attribute.`,
        });
    }
    return outcome(failures, review);
  },
};
