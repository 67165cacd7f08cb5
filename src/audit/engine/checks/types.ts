import type { Frame, Page } from 'playwright-core';
import type { Impact } from '../../result/types.ts';
import type { FocusLooks } from './focus-looks.ts';
import type { KeyboardWalk } from './keyboard-walk.ts';

/** A rule of the deep audit, described the way axe describes its own, so its results read like axe's. */
export interface CheckRule {
  id: string;
  /** What the rule checks. */
  description: string;
  /** What is required, e.g. "Keyboard focus must not be trapped". */
  help: string;
  helpUrl: string;
  /** axe-style tags: the level tag (`wcag2a`, `wcag22aa`, …) and one `wcagNNN` per criterion. */
  tags: string[];
  /** ACT rule ids the rule implements, when one exists. */
  actIds: string[];
  impact: Impact;
  /** For a rule that only asks a person: the question and how to check it by hand. */
  review?: ReviewGuide;
}

export interface ReviewGuide {
  question: string;
  howToCheck: string;
  /** The rule never fails an element, it only asks: it never counts as passed either. */
  only?: boolean;
}

/** One element a check failed or could not decide on, as axe describes a node. */
export interface CheckNode {
  /** axe's target shape: one entry per frame, an array of selectors per shadow root. */
  target: Array<string | string[]>;
  html: string;
  /** Why, for a person: what was measured and what to change. */
  summary: string;
}

export interface CheckOutcome {
  /** False when the page has nothing the rule applies to. */
  applicable: boolean;
  failures: CheckNode[];
  review: CheckNode[];
}

export interface CheckContext {
  page: Page;
  /** Epoch ms past which a check stops and reports what it found so far. */
  deadline: number;
  /** The Tab walk of the page, made once and shared by the keyboard checks. */
  walk(): Promise<KeyboardWalk>;
  /** Each Tab-reachable element photographed focused and unfocused, made once and shared. */
  focusLooks(): Promise<FocusLooks>;
  /** Frames of the page, main first. */
  frames(): Frame[];
}

export interface BrowserCheck {
  rule: CheckRule;
  run(ctx: CheckContext): Promise<CheckOutcome>;
}

export const INAPPLICABLE: CheckOutcome = { applicable: false, failures: [], review: [] };

export function outcome(failures: CheckNode[], review: CheckNode[] = []): CheckOutcome {
  return { applicable: true, failures, review };
}
