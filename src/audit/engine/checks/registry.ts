import type { Impact } from '../../result/types.ts';
import { audioControl } from './audio-control.ts';
import { focusAppearance } from './focus-appearance.ts';
import { focusObscured } from './focus-obscured.ts';
import { focusOrder } from './focus-order.ts';
import { focusVisible } from './focus-visible.ts';
import { keyActivation } from './key-activation.ts';
import { keyboardTrap } from './keyboard-trap.ts';
import { orientation } from './orientation.ts';
import { reducedMotion } from './reduced-motion.ts';
import { reflow } from './reflow.ts';
import { resizeText } from './resize-text.ts';
import { textSpacing } from './text-spacing.ts';
import type { BrowserCheck, CheckRule } from './types.ts';

/**
 * The deep audit's checks, in the order they run: the keyboard walk's first (on the page as loaded), then those
 * that change the viewport or the text and undo it, then those that only read, and last the one that presses
 * keys on controls (which may change the page).
 */
export const BROWSER_CHECKS: readonly BrowserCheck[] = [
  keyboardTrap,
  focusObscured,
  focusOrder,
  focusVisible,
  focusAppearance,
  orientation,
  reflow,
  textSpacing,
  resizeText,
  audioControl,
  reducedMotion,
  keyActivation,
];

const BY_ID = new Map(BROWSER_CHECKS.map((c) => [c.rule.id, c.rule]));

export function browserCheckRule(ruleId: string): CheckRule | undefined {
  return BY_ID.get(ruleId);
}

export function browserCheckImpact(ruleId: string): Impact | null {
  return BY_ID.get(ruleId)?.impact ?? null;
}

/** The checks an audit with these axe tags runs: those whose level tag is among them (2.4.13 only at AAA, …). */
export function checksFor(tags: readonly string[]): BrowserCheck[] {
  return BROWSER_CHECKS.filter((c) => c.rule.tags.some((t) => tags.includes(t)));
}
